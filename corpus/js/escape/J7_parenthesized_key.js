// class: J7 expect: reject effect: read rule: computed-member
const F = (async () => 0)[("constructor")];
F("return _read_file('@@CANARY@@')")().then((s) => print(s));
