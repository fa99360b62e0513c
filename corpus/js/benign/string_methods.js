// want: 00042|ababab|a-b-c|c|trimmed|true true|3
print([
  "42".padStart(5, "0"),
  "ab".repeat(3),
  "a b c".replaceAll(" ", "-"),
  "abc".at(-1),
  "  trimmed  ".trim(),
  `${"hello".startsWith("he")} ${"hello".includes("ll")}`,
  "x,y,z".split(",").length,
].join("|"));
