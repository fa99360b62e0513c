// want: apples=3 pears=5 plums=0\ntotal 8
// Computed member access with a variable key.
const stock = { apples: 3, pears: 5, plums: 0 };
const parts = [];
let total = 0;
for (const key of Object.keys(stock)) {
  parts.push(`${key}=${stock[key]}`);
  total += stock[key];
}
print(parts.join(" "));
print("total", total);
