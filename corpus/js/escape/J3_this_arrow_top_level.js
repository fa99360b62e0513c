// class: J3 expect: reject effect: read rule: global-object
// Arrow functions inherit `this` lexically, so a top-level arrow still sees the global object.
const getGlobal = () => this;
const hidden = [95, 114, 101, 97, 100, 95, 102, 105, 108, 101].map((c) => String.fromCharCode(c)).join("");
print(getGlobal()[hidden]("@@CANARY@@"));
