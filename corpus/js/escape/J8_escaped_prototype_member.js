// class: J8 expect: reject effect: tamper rule: escaped-name
Object.\u0070rototype.toJSON = function () { return "forged answer"; };
FINAL({ real: "answer" });
