// class: J12 expect: reject effect: tamper rule: prototype
// The quoted spelling "__proto__" also sets the prototype in an object literal.
const answer = { "__proto__": { toString() { return "forged answer"; }, toJSON() { return "forged answer"; } }, real: "answer" };
FINAL(answer);
print(answer);
