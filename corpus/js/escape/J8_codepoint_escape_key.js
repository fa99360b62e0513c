// class: J8 expect: reject effect: read rule: escaped-name
const F = (() => 0)["\u{63}onstructor"];
print(F("return _read_file('@@CANARY@@')")());
