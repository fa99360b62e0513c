// class: J14 expect: reject effect: crash rule: alloc-size
// The size spelled as a hex literal: 4 GiB.
const buf = new ArrayBuffer(0x100000000);
print(buf.byteLength);
