// class: J8 expect: reject effect: read rule: escaped-name
// \u0063 is "c": the parser yields the member name "constructor".
const F = (() => 0).\u0063onstructor;
print(F("return _read_file('@@CANARY@@')")());
