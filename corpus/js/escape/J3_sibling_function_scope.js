// class: J3 expect: reject effect: read rule: global-object
function a() {
  const window = {};
  return window;
}
function b() {
  return window.Function("return _read_file(\"@@CANARY@@\")")();
}
print(a(), b());
