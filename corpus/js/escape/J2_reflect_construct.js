// class: J2 expect: reject effect: write rule: reflection
const ctorName = "constr" + "uctor";
const F = Reflect.get(function () {}, ctorName);
const w = Reflect.construct(F, ["return _write_file('@@OUTSIDE@@', 'pwned')"]);
w();
