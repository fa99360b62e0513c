// class: J3 expect: reject effect: read rule: global-object
// A method named self binds no name: self inside it is the global one.
const o = { self() { return self; } };
print(o.self().Function("return _read_file(\"@@CANARY@@\")")());
