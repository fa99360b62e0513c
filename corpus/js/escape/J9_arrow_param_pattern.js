// class: J9 expect: reject effect: read rule: pattern-denied
const grab = ({ constructor: C }) => C("return _read_file('@@CANARY@@')");
print(grab(() => 0)());
