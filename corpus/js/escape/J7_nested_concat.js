// class: J7 expect: reject effect: write rule: computed-member
const F = [][("co" + "ns") + ("tr" + ("uc" + "tor"))][`con` + "str" + `uctor`];
F("_write_file('@@OUTSIDE@@', 'pwned via nested concat')")();
