// class: J9 expect: reject effect: read rule: pattern-denied
const { constructor: C = null } = async () => 0;
C("return _read_file('@@CANARY@@')")().then((s) => print(s));
