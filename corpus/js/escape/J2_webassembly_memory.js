// class: J2 expect: reject effect: crash rule: reflection
// 65536 pages of 64 KiB = 4 GiB of linear memory.
const mem = new WebAssembly.Memory({ initial: 65536 });
print(mem.buffer.byteLength);
