// class: J14 expect: reject effect: crash rule: alloc-size
const s = "".padEnd(2 ** 40, "x");
print(s.length);
