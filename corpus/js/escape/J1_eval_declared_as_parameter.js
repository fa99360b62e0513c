// class: J1 expect: reject effect: read rule: evaluator
// Only global-object and host names may be shadowed: eval stays denied even as a parameter.
function run(eval) {
  return eval("_read_file(\"@@CANARY@@\")");
}
print(run(globalThis.eval));
