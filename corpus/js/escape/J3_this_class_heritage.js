// class: J3 expect: reject effect: write rule: global-object
// The extends clause is also evaluated outside the class body.
let g = null;
class Base {}
class Child extends (g = this, Base) {}
const hidden = String.fromCharCode(95) + "write_file";
g[hidden]("@@OUTSIDE@@", "pwned via class heritage");
