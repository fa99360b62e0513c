// class: J6 expect: reject effect: write rule: member-denied
// [] -> Array -> Function
const F = [].constructor.constructor;
F("_write_file('@@OUTSIDE@@', 'pwned via constructor chain')")();
