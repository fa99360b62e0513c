// ctx: sample want: 8 7000 7362
const chunks = chunk(context, 1000, 0);
const last = chunks[chunks.length - 1];
print(chunks.length, last.start, last.end);
