// class: J9 expect: reject effect: tamper rule: pattern-denied
// Reading __proto__ through a pattern yields Object.prototype.
const { __proto__: OP } = {};
OP.toJSON = function () { return "forged answer"; };
FINAL({ real: "answer" });
