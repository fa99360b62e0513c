// class: J12 expect: reject effect: write rule: prototype
const FP = Object.getPrototypeOf(() => 0);
const F = Object.getOwnPropertyDescriptor(FP, "constr" + "uctor").value;
F("_write_file('@@OUTSIDE@@', 'pwned via getPrototypeOf')")();
