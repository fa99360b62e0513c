// ctx: sample want: 7362
const n = length(context);
print(n);
