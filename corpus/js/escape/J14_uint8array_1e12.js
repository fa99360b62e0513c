// class: J14 expect: reject effect: crash rule: alloc-size
const bytes = new Uint8Array(1e12);
print(bytes.length);
