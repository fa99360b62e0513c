// class: J12 expect: reject effect: write rule: prototype
const FP = Object.getPrototypeOf(__rlm_take);
const F = Object.getOwnPropertyDescriptor(FP, "constr" + "uctor").value;
F("_write_file('@@OUTSIDE@@', 'pwned via a rewrite helper')")();
