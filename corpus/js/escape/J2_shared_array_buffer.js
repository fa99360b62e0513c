// class: J2 expect: reject effect: hang rule: reflection
// Shared memory plus a spin on a value no one else will ever write.
const sab = new SharedArrayBuffer(8);
const view = new Int32Array(sab);
Atomics.store(view, 0, 0);
let spins = 0;
while (Atomics.load(view, 0) === 0) { spins++; }
