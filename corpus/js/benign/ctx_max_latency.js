// ctx: sample want: 32 requests, slowest 963 ms on line 110
const served = search(context, "served in [0-9]+ ms");
let best = { ms: -1, line: 0 };
for (const s of served) {
  const ms = parseInt(s.text.split(" ")[2], 10);
  if (ms > best.ms) best = { ms, line: s.line };
}
print(`${served.length} requests, slowest ${best.ms} ms on line ${best.line}`);
