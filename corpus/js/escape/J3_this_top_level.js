// class: J3 expect: reject effect: write rule: global-object
// Top-level `this` in a script is the global object, even in strict mode.
const g = this;
const name = String.fromCharCode(95) + "write_file";
g[name]("@@OUTSIDE@@", "pwned via top-level this");
