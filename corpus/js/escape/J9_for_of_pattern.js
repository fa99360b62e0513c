// class: J9 expect: reject effect: read rule: pattern-denied
for (const { constructor: C } of [() => 0]) {
  print(C("return _read_file('@@CANARY@@')")());
}
