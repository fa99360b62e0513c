// class: J9 expect: reject effect: read rule: pattern-denied
let F;
({ constructor: F } = () => 0);
print(F("return _read_file('@@CANARY@@')")());
