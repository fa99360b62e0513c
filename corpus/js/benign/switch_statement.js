// want: INFO:low WARN:mid ERROR:high DEBUG:unknown
function severity(level) {
  switch (level) {
    case "INFO":
      return "low";
    case "WARN":
      return "mid";
    case "ERROR":
    case "FATAL":
      return "high";
    default:
      return "unknown";
  }
}
print(["INFO", "WARN", "ERROR", "DEBUG"].map((l) => `${l}:${severity(l)}`).join(" "));
