// class: J8 expect: reject effect: read rule: escaped-name
const g = \u0067lobalThis;
print(g["ev" + "al"]("_read_file('@@CANARY@@')"));
