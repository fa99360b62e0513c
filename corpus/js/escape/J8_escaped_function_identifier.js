// class: J8 expect: reject effect: write rule: escaped-name
const w = \u{46}unction("_write_file('@@OUTSIDE@@', 'pwned via escaped Function')");
w();
