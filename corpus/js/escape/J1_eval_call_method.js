// class: J1 expect: reject effect: read rule: evaluator
print(eval.call(null, "_read_file('@@CANARY@@')"));
