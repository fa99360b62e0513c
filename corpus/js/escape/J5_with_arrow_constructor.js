// class: J5 expect: reject effect: read rule: with
// Inside `with`, the bare identifier `constructor` resolves to the arrow's constructor: Function.
with (() => 0) {
  print(constructor("return _read_file('@@CANARY@@')")());
}
