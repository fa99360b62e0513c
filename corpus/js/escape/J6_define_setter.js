// class: J6 expect: reject effect: tamper rule: member-denied
// Every object inherits a `result` setter that intercepts writes, the trusted prelude's own objects included.
const OP = Object.getOwnPropertyDescriptor(Object, "proto" + "type").value;
OP.__defineSetter__("result", function (v) { print("intercepted: " + v); });
FINAL("answer");
