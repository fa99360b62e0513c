// ctx: sample want: 21
print(search(context, "WARN").length);
