// ctx: sample final: {"errors":9,"warns":21,"info":90}
const summary = {
  errors: count(context, "ERROR"),
  warns: count(context, "WARN"),
  info: count(context, "INFO"),
};
FINAL(JSON.stringify(summary));
