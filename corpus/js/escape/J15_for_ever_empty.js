// class: J15 expect: reject effect: hang rule: hang
for (;;) {}
