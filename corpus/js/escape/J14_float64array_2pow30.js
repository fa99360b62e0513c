// class: J14 expect: reject effect: crash rule: alloc-size
// 2^30 elements of 8 bytes = 8 GiB.
const f = new Float64Array(2 ** 30);
print(f.length);
