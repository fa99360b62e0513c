// class: J7 expect: reject effect: write rule: computed-member
const F = (() => 0)["constr" + "uctor"];
F("_write_file('@@OUTSIDE@@', 'pwned via concat key')")();
