// class: J15 expect: reject effect: hang rule: regex-backtrack
// RegExp called as a function, with a nested-star pattern behind a lookbehind.
const re = RegExp("(?<=^)(\\d*)*$");
print(String(re.test("11111111111111111111111111111111111x")));
