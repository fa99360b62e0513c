// class: J9 expect: reject effect: read rule: pattern-denied
try {
  throw () => 0;
} catch ({ constructor: C }) {
  print(C("return _read_file('@@CANARY@@')")());
}
