// class: J12 expect: reject effect: read rule: prototype
const GFP = Object.getPrototypeOf(function* () {});
const GF = Object.getOwnPropertyDescriptor(GFP, "constr" + "uctor").value;
print(GF("yield _read_file('@@CANARY@@')")().next().value);
