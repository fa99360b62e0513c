// want: cy:9 ann:7 bob:7 dee:2\n1,2,10,21
const scores = [
  { name: "bob", score: 7 },
  { name: "dee", score: 2 },
  { name: "ann", score: 7 },
  { name: "cy", score: 9 },
];
scores.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
print(scores.map((s) => `${s.name}:${s.score}`).join(" "));
print([10, 2, 21, 1].sort((a, b) => a - b).join(","));
