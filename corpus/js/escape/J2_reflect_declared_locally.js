// class: J2 expect: reject effect: read rule: reflection
function f() {
  const Reflect = { get: (o, k) => o[k] };
  return Reflect.get(() => 0, "constr" + "uctor");
}
print(f()("return _read_file(\"@@CANARY@@\")")());
