// class: J9 expect: reject effect: read rule: pattern-denied
const { tools: { constructor: C } } = { tools: () => 0 };
print(C("return _read_file('@@CANARY@@')")());
