// ctx: sample want: auth=26 billing=23 gateway=26 naïve-cache=24 search=21
const tally = new Map();
for (const hit of search(context, "\\[[^\\]]+\\]")) {
  const name = hit.text.slice(1, -1);
  tally.set(name, (tally.get(name) ?? 0) + 1);
}
const parts = [...tally.entries()]
  .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  .map(([name, n]) => `${name}=${n}`);
print(parts.join(" "));
