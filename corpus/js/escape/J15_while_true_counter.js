// class: J15 expect: reject effect: hang rule: hang
let i = 0;
while (true) {
  i++;
}
