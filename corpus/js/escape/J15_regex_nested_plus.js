// class: J15 expect: reject effect: hang rule: regex-backtrack
// Catastrophic backtracking, exponential in the input length. goja normally runs RE2-compatible
// patterns on RE2, but a sticky match from a nonzero lastIndex switches it to the backtracking
// regexp2 engine, which vm.Interrupt cannot stop.
const re = /(a+)+$/y;
re.lastIndex = 1;
print(String(re.test("!aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!")));
