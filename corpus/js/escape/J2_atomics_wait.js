// class: J2 expect: reject effect: hang rule: reflection
// Blocks the host thread forever: nothing will ever notify this cell.
const cell = new Int32Array(new SharedArrayBuffer(4));
Atomics.wait(cell, 0, 0);
