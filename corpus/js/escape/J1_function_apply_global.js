// class: J1 expect: reject effect: read rule: evaluator
// Function("return this") yields the global object even in a strict host script.
const g = Function.apply(null, ["return this"])();
const name = String.fromCharCode(95) + "read_file";
print(g[name]("@@CANARY@@"));
