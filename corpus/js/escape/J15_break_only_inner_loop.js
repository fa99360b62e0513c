// class: J15 expect: reject effect: hang rule: hang
// The break belongs to the inner loop; the outer loop never exits.
let n = 0;
while (true) {
  for (;;) {
    n++;
    break;
  }
}
