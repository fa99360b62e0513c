// class: J3 expect: reject effect: read rule: global-object
// The global object hands out eval under a name the validator never sees.
const run = globalThis["ev" + "al"];
print(run("_read_file('@@CANARY@@')"));
