// A typical model-written cell: count lines per log level in the input.
const counts = new Map();
for (const line of peek(context, 0, Math.min(length(context), 16000)).split("\n")) {
  const fields = line.split(/\s+/);
  if (fields.length > 1) counts.set(fields[1], (counts.get(fields[1]) ?? 0) + 1);
}
for (const [level, n] of [...counts].sort()) print(level, n);
