// ctx: sample want: ERROR=9 INFO=90 WARN=21
const levels = {};
for (const h of search(context, "(INFO|WARN|ERROR) ")) {
  const level = h.text.trim();
  levels[level] = (levels[level] || 0) + 1;
}
print(Object.keys(levels).sort().map((k) => `${k}=${levels[k]}`).join(" "));
