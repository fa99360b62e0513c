// class: J9 expect: reject effect: read rule: pattern-denied
let C;
for ({ constructor: C } of [function () {}]) {
  break;
}
print(C("return _read_file('@@CANARY@@')")());
