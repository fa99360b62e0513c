// want: the=3 cat=2 sat=1
const text = "The cat sat. The cat ran? THE end!";
const freq = new Map();
for (const w of text.toLowerCase().split(/[^a-z]+/)) {
  if (w) freq.set(w, (freq.get(w) || 0) + 1);
}
print(["the", "cat", "sat"].map((w) => `${w}=${freq.get(w)}`).join(" "));
