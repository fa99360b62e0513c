// class: J7 expect: reject effect: read rule: computed-member
const f = () => 0;
const F = f?.["constructor"];
print(F("return _read_file('@@CANARY@@')")());
