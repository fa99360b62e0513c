// want: 3000 xx1 x12 x13 x1 3 2,3 a1b2 bca caf,na,ve,x2 null -2,0,1,3 3,1,0,-2 b:3,a:1,c:1
let a = "x".repeat(2999); a += "1"; const kept = a; a += "2"; let b = kept; b += "3";
const rows = ["k,v,1", "k,w,2"];
let total = 0;
for (const row of rows) { const [, , n] = row.split(","); total += Number(n) }
function rest(xs) { const [, ...r] = xs; return r.join() }
let s = "";
for (const [k, v] of new Map([["a", 1], ["b", 2]])) s += k + v;
const order = [["a", 3], ["b", 1], ["c", 2]].sort(([, x], [, y]) => x - y).map(([k]) => k).join("");
const words = "Café naïve — x2 😀".toLowerCase().match(/[a-z0-9]+/g).join();
print(kept.length, kept.slice(-3), a.slice(-3), b.slice(-3), kept.slice(-2), total, rest([1, 2, 3]), s, order, words, "é".match(/\d+/g), [3, -2, 1, 0].sort((a, b) => a - b).join(), [3, -2, 1, 0].sort(function (a, b) { return b - a }).join(), Object.entries({ a: 1, b: 3, c: 1 }).map(([k, v], i) => ({ k, v, i: -i })).sort((x, y) => y.v - x.v || y.i - x.i).map((o) => o.k + ":" + o.v).join());
