// ctx: sample want: 121 newlines in 15 windows
// A while(true) scan that always breaks out.
let off = 0;
let windows = 0;
let newlines = 0;
while (true) {
  const piece = peek(context, off, 500);
  if (piece.length === 0) break;
  windows++;
  newlines += piece.split("\n").length - 1;
  off += 500;
}
print(`${newlines} newlines in ${windows} windows`);
