// class: J2 expect: reject effect: read rule: reflection
// Reflect.get takes the property name as a plain string argument, so no member syntax is involved.
const F = Reflect.get(() => 0, "constructor");
print(F("return _read_file('@@CANARY@@')")());
