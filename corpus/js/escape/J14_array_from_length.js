// class: J14 expect: reject effect: crash rule: alloc-size
// Array.from with an array-like whose length is 1e10.
const a = Array.from({ length: 1e10 });
print(a.length);
