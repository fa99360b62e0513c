// class: J9 expect: reject effect: write rule: pattern-denied
const { constructor } = function () {};
constructor("_write_file('@@OUTSIDE@@', 'pwned via shorthand pattern')")();
