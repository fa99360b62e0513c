// class: J15 expect: reject effect: hang rule: hang
// The return and throw belong to nested functions, not to the loop.
let total = 0;
while (true) {
  total += [1, 2, 3].map(function (x) { return x * 2; }).length;
  const check = () => { if (total < 0) throw new Error("unreachable"); };
  check();
}
