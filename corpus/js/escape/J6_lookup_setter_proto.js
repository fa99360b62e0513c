// class: J6 expect: reject effect: tamper rule: member-denied
// The __proto__ setter re-parents the array prototype onto an object with a forged toJSON.
const setProto = ({}).__lookupSetter__("__proto__");
const AP = Object.getOwnPropertyDescriptor(Array, "proto" + "type").value;
setProto.call(AP, { toJSON() { return "forged answer"; } });
FINAL(["real", "answer"]);
