// class: J6 expect: reject effect: tamper rule: member-denied
Object.prototype.toJSON = function () { return "forged answer"; };
FINAL({ real: "answer" });
