// class: J8 expect: reject effect: tamper rule: escaped-name
const OP = ({})["\u005f\u005fproto\u005f\u005f"];
OP.toJSON = function () { return "forged answer"; };
FINAL({ real: "answer" });
