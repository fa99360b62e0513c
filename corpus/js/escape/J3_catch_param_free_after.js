// class: J3 expect: reject effect: read rule: global-object
try {
  throw new Error("x");
} catch (self) {
  print(self.message);
}
print(self.Function("return _read_file(\"@@CANARY@@\")")());
