// ctx: sample want: 2026-11-01T10:00:00Z
// Look at the first few characters to learn the log format.
const head = peek(context, 0, 200);
const firstLine = head.split("\n")[0];
print(firstLine.slice(0, 20));
