// want: 0,1,2
const fns = [];
for (let i = 0; i < 3; i++) {
  fns.push(() => i);
}
print(fns.map((f) => f()).join(","));
