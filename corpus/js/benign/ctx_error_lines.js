// ctx: sample want: 7,8,26,42,72,76,90,97,103
const lines = search(context, "ERROR").map((h) => h.line);
print(lines.join(","));
