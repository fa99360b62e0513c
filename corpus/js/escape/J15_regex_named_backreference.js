// class: J15 expect: reject effect: hang rule: regex-backtrack
// A named backreference (\k<a>) over four free groups: polynomial blow-up in regexp2.
const re = /^(?<a>.*)(.*)(.*)(.*)\k<a>x$/;
print(String(re.test("1".repeat(400))));
