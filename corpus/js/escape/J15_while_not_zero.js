// class: J15 expect: reject effect: hang rule: hang
// A constant-true condition that is not the literal `true`.
let ticks = 0;
while (!0) {
  ticks += 1;
}
