// class: J15 expect: reject effect: hang rule: hang
// A labelled break that only targets the inner loop.
outer: while (true) {
  inner: for (;;) {
    break inner;
  }
}
