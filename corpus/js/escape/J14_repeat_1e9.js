// class: J14 expect: reject effect: crash rule: alloc-size
// One billion characters: goja stores them eagerly.
const s = "a".repeat(1e9);
print(s.length);
