// class: J1 expect: reject effect: write rule: evaluator
const writer = new Function("p", "data", "return _write_file(p, data)");
writer("@@OUTSIDE@@", "pwned by new Function");
