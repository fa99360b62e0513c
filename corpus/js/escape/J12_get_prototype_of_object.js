// class: J12 expect: reject effect: tamper rule: prototype
// Object.prototype reached without any denied member name: every serialised answer is forged.
const OP = Object.getPrototypeOf({});
OP.toJSON = function () { return "forged answer"; };
FINAL({ real: "answer" });
