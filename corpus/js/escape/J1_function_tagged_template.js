// class: J1 expect: reject effect: read rule: evaluator
// A tagged template calls Function with the strings array, which stringifies to the body.
const g = Function`return _read_file("@@CANARY@@")`;
print(g());
