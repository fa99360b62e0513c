// class: P1 expect: contain effect: read
// A path whose toString answers differently each time: a harmless name when checked, the canary
// when used. The host converts it once, before any check.
let n = 0;
const path = { toString() { n++; return n % 2 === 1 ? "@@ROOT@@/notes.txt" : "@@CANARY@@"; } };
print(read_file(path));
