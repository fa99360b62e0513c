// ctx: sample want: 0-2000 2000-4000 4000-6000 6000-7362
const bounds = chunk(context, 2000, 0).map((c) => `${c.start}-${c.end}`);
print(bounds.join(" "));
