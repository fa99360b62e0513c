// class: J15 expect: reject effect: hang rule: regex-backtrack
// Backreference only, no nested quantifier: five free groups make this O(n^5) in regexp2.
const re = /^(.*)(.*)(.*)(.*)(.*)\1x$/;
print(String(re.test("a".repeat(400))));
