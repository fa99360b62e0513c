// want: 1,1,2,2,3,3 | 15 | true false | 4 | 1,2,3,4 | 3
const a = [1, 2, 3];
const parts = [
  a.flatMap((x) => [x, x]).join(","),
  [1, 2, 3, 4, 5].reduce((s, x) => s + x, 0),
  `${a.some((x) => x > 2)} ${a.every((x) => x > 2)}`,
  [1, 5, 4, 2].findLast((x) => x > 3),
  [[1, 2], [3, [4]]].flat(2).join(","),
  a.indexOf(3) + a.includes(2),
];
print(parts.join(" | "));
