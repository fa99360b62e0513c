// class: J9 expect: reject effect: write rule: pattern-denied
const [, { constructor: C }] = [1, () => 0];
C("_write_file('@@OUTSIDE@@', 'pwned via array pattern')")();
