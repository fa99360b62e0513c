// want: ababab 2026-11 3 a1b2c3 x_y
// Quantified groups without inner quantifiers, and quantifiers without enclosing repetition.
const rep = "zzababab!".match(/(?:ab)+/)[0];
const ym = /(\d+)-(\d+)/.exec("2026-11")[0];
const n = "a,b;c".split(/[,;]/).length;
const joined = "a-1 b-2 c-3".replace(/([a-z])-(\d)\s?/g, "$1$2");
const snake = "x y".replace(/\s+/g, "_");
print(rep, ym, n, joined, snake);
