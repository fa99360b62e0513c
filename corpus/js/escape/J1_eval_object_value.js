// class: J1 expect: reject effect: write rule: evaluator
const helpers = { run: eval, name: "helpers" };
helpers.run("_write_file('@@OUTSIDE@@', 'pwned via object value')");
