// class: J8 expect: reject effect: read rule: escaped-name
const F = (() => 0)[`\u0063onstructor`];
print(F("return _read_file('@@CANARY@@')")());
