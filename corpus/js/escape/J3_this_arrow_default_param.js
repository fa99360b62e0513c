// class: J3 expect: reject effect: read rule: global-object
// A default parameter of a top-level arrow captures the script's `this`.
const root = (g = this) => g;
const hidden = ["", "read", "file"].join(String.fromCharCode(95));
print(root()[hidden]("@@CANARY@@"));
