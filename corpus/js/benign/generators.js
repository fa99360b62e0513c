// want: 0,1,1,2,3,5,8,13\n6
function* fib() {
  let a = 0;
  let b = 1;
  while (true) {
    yield a;
    [a, b] = [b, a + b];
    if (a > 1e6) return;
  }
}
function* take(it, n) {
  for (const v of it) {
    if (n-- <= 0) return;
    yield v;
  }
}
print([...take(fib(), 8)].join(","));
function* counting() {
  const got = yield 1;
  yield got * 2;
}
const g = counting();
g.next();
print(g.next(3).value);
