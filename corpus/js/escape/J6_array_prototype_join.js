// class: J6 expect: reject effect: tamper rule: member-denied
// Replace Array.prototype.join, which the host's stringification of arrays goes through.
Array.prototype.join = function () { return "forged"; };
print(["real", "answer"]);
