// A typical model-written cell: count the lines of each log level over the whole input. peek
// returns at most 16,000 characters, so the cell reads the input piece by piece; a line cut at
// the end of a piece is completed by the next one.
const counts = new Map();
const tally = (line) => {
  const fields = line.split(/\s+/);
  if (fields.length > 1) counts.set(fields[1], (counts.get(fields[1]) ?? 0) + 1);
};
const n = length(context);
let rest = "";
for (let off = 0; off < n; off += 16000) {
  const lines = (rest + peek(context, off, Math.min(16000, n - off))).split("\n");
  rest = lines.pop();
  lines.forEach(tally);
}
if (rest !== "") tally(rest);
for (const [level, k] of [...counts].sort()) print(level, k);
