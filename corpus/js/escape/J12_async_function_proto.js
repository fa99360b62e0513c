// class: J12 expect: reject effect: read rule: prototype
// AsyncFunction.prototype, then its constructor via a string-named descriptor: an evaluator.
const AFP = Object.getPrototypeOf(async function () {});
const AF = Object.getOwnPropertyDescriptor(AFP, "constr" + "uctor").value;
AF("return _read_file('@@CANARY@@')")().then((s) => print(s));
