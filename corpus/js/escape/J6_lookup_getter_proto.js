// class: J6 expect: reject effect: read rule: member-denied
// The __proto__ getter pulled out by name, then applied to a function: Function.prototype.
const getProto = ({}).__lookupGetter__("__proto__");
const FP = getProto.call(() => 0);
const F = Object.getOwnPropertyDescriptor(FP, "constructor").value;
print(F("return _read_file('@@CANARY@@')")());
