// class: J15 expect: reject effect: hang rule: regex-backtrack
// The lookbehind is RE2-incompatible, so goja compiles this with regexp2 and (\w*)* backtracks.
const re = /(?<!y)(\w*)*x/;
print(String(re.test("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")));
