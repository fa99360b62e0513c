// class: J14 expect: reject effect: crash rule: alloc-size
const s = "x".repeat(2 ** 44);
print(s.length);
