// class: J1 expect: reject effect: write rule: evaluator
const F = (Function);
const w = new (F)("return _write_file('@@OUTSIDE@@', 'pwned')");
w();
