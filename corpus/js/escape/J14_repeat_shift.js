// class: J14 expect: reject effect: crash rule: alloc-size
// The count spelled as a shift: 1 << 30 = 1073741824.
const s = "ab".repeat(1 << 30);
print(s.length);
