// class: J7 expect: reject effect: read rule: computed-member
// The condition is not constant, but one branch is: the key can be "constructor".
const pick = length(context) >= 0;
const F = (() => 0)[pick ? "constructor" : "name"];
print(F("return _read_file('@@CANARY@@')")());
