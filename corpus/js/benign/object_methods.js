// want: a,b 1,2 {"a":1,"b":2,"c":3} true true false
const o = { a: 1, b: 2 };
const merged = Object.assign({}, o, { c: 3 });
const frozen = Object.freeze({ k: 1 });
print(Object.keys(o).join(","), Object.values(o).join(","), JSON.stringify(merged), String(Object.isFrozen(frozen)), String(Object.hasOwn(o, "a")), String(Object.hasOwn(o, "z")));
