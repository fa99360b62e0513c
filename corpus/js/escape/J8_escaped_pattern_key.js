// class: J8 expect: reject effect: read rule: escaped-name
const { \u0063onstructor: F } = () => 0;
print(F("return _read_file('@@CANARY@@')")());
