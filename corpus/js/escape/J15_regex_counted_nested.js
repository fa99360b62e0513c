// class: J15 expect: reject effect: hang rule: regex-backtrack
// Nested unbounded counted repetition; the lookahead keeps it off RE2.
const re = /^(?=b)(b{1,}){2,}$/;
print(String(re.test("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb1")));
