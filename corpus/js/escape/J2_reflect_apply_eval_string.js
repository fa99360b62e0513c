// class: J2 expect: reject effect: read rule: reflection
// Reflect.apply with a function reached by name strings only.
const fn = Reflect.get(print, "constr" + "uctor");
const leak = Reflect.apply(fn, undefined, ["return _read_file('@@CANARY@@')"]);
print(leak());
