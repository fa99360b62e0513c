// ctx: sample want: 272 ms
const n = length(context);
print(peek(context, n - 7, 6));
