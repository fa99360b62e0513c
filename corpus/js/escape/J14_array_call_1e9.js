// class: J14 expect: reject effect: crash rule: alloc-size
// Array called without new behaves the same.
const a = Array(1e9).fill(0);
print(a.length);
