// class: J15 expect: reject effect: hang rule: regex-backtrack
// String.prototype.match converts a string argument into a RegExp: no regex literal in sight.
const m = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!".match("^(?=a)(a+)+$");
print(String(m));
