// class: J7 expect: reject effect: read rule: computed-member
const F = (() => 0)[`constr${"uctor"}`];
print(F("return _read_file('@@CANARY@@')")());
