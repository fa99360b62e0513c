// want: 2 [["a",1],["b",2]]
const frames = new Map();
frames.set("a", 1);
frames.set("b", 2);
print(frames.size, JSON.stringify([...frames]));
