// class: J1 expect: reject effect: read rule: evaluator
// Function-created code is sloppy-mode and sees every global, hidden or not.
const leak = Function("return _read_file('@@CANARY@@')");
print(leak());
