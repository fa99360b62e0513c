// ctx: sample want: 379 384 7 ERROR
const hits = search(context, "ERROR");
const first = hits[0];
print(first.start, first.end, first.line, first.text);
