// class: J6 expect: reject effect: tamper rule: member-denied
// Define an inherited toJSON getter on Object.prototype, reached through a string-named descriptor.
const OP = Object.getOwnPropertyDescriptor(Object, "proto" + "type").value;
OP.__defineGetter__("toJSON", function () { return () => "forged answer"; });
FINAL({ real: "answer" });
