// class: J14 expect: reject effect: crash rule: alloc-size
// fill() turns the sparse array into 30 million dense slots.
const a = new Array(3e7).fill(1);
print(a.length);
