// class: J12 expect: reject effect: tamper rule: prototype
const answer = ["real", "answer"];
Object.setPrototypeOf(answer, { join() { return "forged"; }, toString() { return "forged"; }, toJSON() { return "forged"; } });
FINAL(answer);
