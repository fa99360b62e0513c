// class: J14 expect: reject effect: crash rule: alloc-size
// 16 TiB backing store.
const buf = new ArrayBuffer(2 ** 44);
print(buf.byteLength);
