// class: J15 expect: reject effect: hang rule: hang
do {} while (1);
