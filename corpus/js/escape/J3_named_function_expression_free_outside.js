// class: J3 expect: reject effect: read rule: global-object
const f = function self(n) { return n > 0 ? self(n - 1) : 0; };
print(f(3), self.Function("return _read_file(\"@@CANARY@@\")")());
