// A typical model-written exploration cell: tally log levels and slow requests per service.
const text = `2026-11-01T10:00:00Z INFO  [billing] user 667 logged in
2026-11-01T10:00:01Z INFO  [auth] cache hit for key k97
2026-11-01T10:00:02Z WARN  [search] slow query took 932 ms
2026-11-01T10:00:03Z ERROR [gateway] upstream timeout after 411 ms
2026-11-01T10:00:04Z INFO  [auth] request served in 12 ms
2026-11-01T10:00:05Z WARN  [billing] retrying upstream (attempt 3)`;

function parseMillis(fields) {
  for (let i = 1; i < fields.length; i++) {
    if (fields[i] === "ms") {
      const n = Number.parseInt(fields[i - 1], 10);
      if (!Number.isNaN(n)) return n;
    }
  }
  return -1;
}

const levels = new Map();
const services = new Map();
for (const line of text.split("\n")) {
  const fields = line.trim().split(/\s+/);
  if (fields.length < 3) continue;
  levels.set(fields[1], (levels.get(fields[1]) ?? 0) + 1);
  const svc = fields[2].replace(/[\[\]]/g, "");
  if (!services.has(svc)) services.set(svc, { count: 0, slow: 0, worst: 0 });
  const s = services.get(svc);
  s.count++;
  const ms = parseMillis(fields);
  if (ms >= 0) {
    if (ms > 400) s.slow++;
    s.worst = Math.max(s.worst, ms);
  }
}

const lines = [];
for (const name of [...services.keys()].sort()) {
  const { count, slow, worst } = services.get(name);
  lines.push(`${name.padEnd(8)} lines=${count} slow=${slow} worst=${worst}ms`);
}
const summary = [...levels.entries()]
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([k, v]) => `${k}=${v}`)
  .join(" ");
lines.push(summary);
const report = lines.join("\n");
const byLevel = Object.fromEntries(levels);
const total = Object.values(byLevel).reduce((a, b) => a + b, 0);
print(report);
print("total", total, "services", services.size);
