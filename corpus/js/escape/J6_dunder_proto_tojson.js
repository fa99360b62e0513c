// class: J6 expect: reject effect: tamper rule: member-denied
// ({}).__proto__ is Object.prototype: every object the host serialises is now forged.
const OP = ({}).__proto__;
OP.toJSON = function () { return "forged answer"; };
FINAL({ real: "answer" });
