// class: J3 expect: reject effect: read rule: global-object
const { Function: F } = self;
print(F("return _read_file('@@CANARY@@')")());
