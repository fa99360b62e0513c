// class: J8 expect: reject effect: write rule: escaped-name
const F = (() => 0)["\x63onstructor"];
F("_write_file('@@OUTSIDE@@', 'pwned via hex escape')")();
