// want: 10 4 {"a":1,"b":2,"c":3} 1,2,3,4
function sum(...nums) {
  return nums.reduce((s, n) => s + n, 0);
}
const nums = [1, 2, 3, 4];
const base = { a: 1, b: 2 };
print(sum(...nums), Math.max(...nums), JSON.stringify({ ...base, c: 3 }), [...nums.slice(0, 2), ...[3, 4]].join(","));
