// class: J3 expect: reject effect: read rule: global-object
{
  const self = { note: "a shadow in a block ends with the block" };
  print(self.note);
}
const { Function: F } = self;
print(F("return _read_file(\"@@CANARY@@\")")());
