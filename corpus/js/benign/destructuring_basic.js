// want: 1 5 {"c":3,"d":4}\n10 30\n2 1\nAda 36
const obj = { a: 1, c: 3, d: 4 };
const { a, b: renamed = 5, ...rest } = obj;
print(a, renamed, JSON.stringify(rest));
const [x, , y = 30] = [10, 20];
print(x, y);
let p = 1;
let q = 2;
[p, q] = [q, p];
print(p, q);
const people = [{ name: "Ada", age: 36 }];
for (const { name, age } of people) print(name, age);
