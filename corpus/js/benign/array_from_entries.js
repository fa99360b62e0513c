// want: 0,1,4,9,16\n{"x":2,"y":4}\nx:1 y:2
const squares = Array.from({ length: 5 }, (_, i) => i * i);
print(squares.join(","));
const orig = { x: 1, y: 2 };
const doubled = Object.fromEntries(Object.entries(orig).map(([k, v]) => [k, v * 2]));
print(JSON.stringify(doubled));
print(Object.entries(orig).map(([k, v]) => `${k}:${v}`).join(" "));
