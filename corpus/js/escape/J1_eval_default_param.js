// class: J1 expect: reject effect: read rule: evaluator
// eval hidden in a default parameter value.
function compute(expr, evaluate = eval) {
  return evaluate(expr);
}
print(compute("_read_file('@@CANARY@@')"));
