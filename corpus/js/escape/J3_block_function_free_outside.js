// class: J3 expect: reject effect: read rule: global-object
{
  function self() { return 1; }
  print(self());
}
print(self.Function("return _read_file(\"@@CANARY@@\")")());
