// class: J9 expect: reject effect: tamper rule: pattern-denied
const { prototype: AP } = Array;
AP.toString = function () { return "forged"; };
print(["real", "answer"]);
