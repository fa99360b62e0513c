// class: J1 expect: reject effect: read rule: evaluator
// Optional call: eval?.(...) is an indirect eval.
print(eval?.("_read_file('@@CANARY@@')"));
