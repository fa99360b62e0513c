// class: J8 expect: reject effect: read rule: escaped-name
const s\u0065lf = 1;
print(self.Function("return _read_file(\"@@CANARY@@\")")());
