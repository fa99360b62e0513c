// class: J10 expect: reject effect: write rule: underscore
const g = globalThis;
g["_write_file"]("@@OUTSIDE@@", "pwned via computed member");
