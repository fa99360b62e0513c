// class: J6 expect: reject effect: read rule: member-denied
const f = () => 0;
const F = f?.constructor;
print(F?.("return _read_file('@@CANARY@@')")());
