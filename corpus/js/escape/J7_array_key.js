// class: J7 expect: reject effect: read rule: computed-member
// A one-element array key is converted with ToString: ["constructor"] -> "constructor".
const F = (() => 0)[["constructor"]];
print(F("return _read_file('@@CANARY@@')")());
