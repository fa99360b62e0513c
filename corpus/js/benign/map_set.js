// want: 3 b:2 true\n1,2,3 false 2
const m = new Map([["a", 1], ["b", 2]]);
m.set("c", 3);
print(m.size, `b:${m.get("b")}`, String(m.has("a")));
const s = new Set([1, 2, 2, 3, 1]);
s.delete(4);
print([...s].join(","), String(s.has(4)), [...m.keys()].indexOf("c"));
