// ctx: sample want: errors: 9
const errors = count(context, "ERROR");
print("errors:", errors);
