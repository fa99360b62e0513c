// want: 2 [0,1,2] 6
// `_` on its own is an ordinary identifier.
const [_, second] = [1, 2];
const indexes = ["a", "b", "c"].map((_, i) => i);
const sum = (_ => _ * 2)(3);
print(second, JSON.stringify(indexes), sum);
