// ctx: sample want: 9 9 true
// Typical cell: walk the chunks, peek each one, split into lines and filter.
let text = "";
for (const c of chunk(context, 1000, 0)) {
  text += peek(context, c.start, c.end - c.start);
}
const errorLines = text.split("\n").filter((line) => line.includes(" ERROR "));
const direct = count(context, "ERROR");
print(errorLines.length, direct, String(errorLines.length === direct));
