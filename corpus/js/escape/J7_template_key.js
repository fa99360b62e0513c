// class: J7 expect: reject effect: read rule: computed-member
const F = (() => 0)[`constructor`];
print(F("return _read_file('@@CANARY@@')")());
