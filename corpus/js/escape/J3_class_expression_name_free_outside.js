// class: J3 expect: reject effect: read rule: global-object
const C = class frames { static n = 1; };
print(C.n, frames.Function("return _read_file(\"@@CANARY@@\")")());
