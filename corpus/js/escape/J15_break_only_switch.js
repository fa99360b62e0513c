// class: J15 expect: reject effect: hang rule: hang
// `break` inside switch leaves the switch, not the loop.
let state = 0;
for (;;) {
  switch (state) {
    case 0:
      state = 1;
      break;
    default:
      state = 0;
      break;
  }
}
