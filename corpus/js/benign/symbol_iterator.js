// want: 1,2,3,4,5\n15
class Range {
  constructor(lo, hi) {
    this.lo = lo;
    this.hi = hi;
  }
  *[Symbol.iterator]() {
    for (let i = this.lo; i <= this.hi; i++) yield i;
  }
}
const r = new Range(1, 5);
print([...r].join(","));
let total = 0;
for (const v of r) total += v;
print(total);
