// ctx: sample final: 9
FINAL(count(context, "ERROR"));
