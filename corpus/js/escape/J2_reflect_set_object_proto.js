// class: J2 expect: reject effect: tamper rule: reflection
// Pollute Object.prototype.toJSON so every answer the host serialises is forged.
const OP = Reflect.get(Object, "proto" + "type");
Reflect.set(OP, "toJSON", function () { return "forged answer"; });
FINAL({ real: "answer" });
