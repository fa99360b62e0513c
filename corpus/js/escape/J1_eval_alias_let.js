// class: J1 expect: reject effect: write rule: evaluator
let e = eval;
const run = (code) => e(code);
run("_write_file('@@OUTSIDE@@', 'pwned via alias')");
