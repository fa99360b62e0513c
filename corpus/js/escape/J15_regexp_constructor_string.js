// class: J15 expect: reject effect: hang rule: regex-backtrack
// A lookahead forces the backtracking engine; (x+)+ then explodes.
const re = new RegExp("(?=x)(x+)+y");
print(String(re.test("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")));
