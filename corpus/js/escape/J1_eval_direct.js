// class: J1 expect: reject effect: read rule: evaluator
// Direct eval: the string is invisible to the validator and calls the hidden host reader.
const secret = eval("_read_file('@@CANARY@@')");
print(secret);
