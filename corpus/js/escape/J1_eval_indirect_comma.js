// class: J1 expect: reject effect: write rule: evaluator
// Indirect eval runs in the global scope, where the hidden writer lives.
(0, eval)("_write_file('@@OUTSIDE@@', 'pwned by indirect eval')");
