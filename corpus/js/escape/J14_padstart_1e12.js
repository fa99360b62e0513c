// class: J14 expect: reject effect: crash rule: alloc-size
const s = "".padStart(1e12);
print(s.length);
