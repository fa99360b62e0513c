// class: J7 expect: reject effect: tamper rule: computed-member
const OP = ({})['__proto__'];
OP.toJSON = function () { return "forged answer"; };
FINAL({ real: "answer" });
