// class: J12 expect: reject effect: tamper rule: prototype
// An object literal whose prototype is attacker-chosen: the answer inherits a forged toJSON.
const evil = { toJSON() { return "forged answer"; } };
const answer = { __proto__: evil, real: "answer" };
FINAL(answer);
