// class: J7 expect: reject effect: tamper rule: computed-member
Array["prototype"].join = function () { return "forged"; };
print(["real", "answer"]);
