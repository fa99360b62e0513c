// class: J8 expect: reject effect: read rule: escaped-name
// Legacy octal escape (\143 is "c"); goja accepts it even when compiling in strict mode.
const F = (() => 0)["\143onstructor"];
print(F("return _read_file('@@CANARY@@')")());
