// class: J12 expect: reject effect: tamper rule: prototype
// Re-parent Array.prototype onto an object carrying a forged toJSON.
const AP = Object.getOwnPropertyDescriptor(Array, "proto" + "type").value;
Object.setPrototypeOf(AP, { toJSON() { return "forged answer"; } });
FINAL(["real", "answer"]);
