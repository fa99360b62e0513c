// class: J9 expect: reject effect: read rule: pattern-denied
// A constant computed key inside a pattern.
const { ["constr" + "uctor"]: C } = () => 0;
print(C("return _read_file('@@CANARY@@')")());
