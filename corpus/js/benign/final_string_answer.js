// final: The answer is 42.
const parts = ["The", "answer", "is", `${6 * 7}.`];
FINAL(parts.join(" "));
