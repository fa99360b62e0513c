// class: J3 expect: reject effect: write rule: global-object
const w = window;
w["ev" + "al"]("_write_file('@@OUTSIDE@@', 'pwned via window')");
