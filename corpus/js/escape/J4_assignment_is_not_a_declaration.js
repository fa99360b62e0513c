// class: J4 expect: reject effect: read rule: host-access
// Assigning to require declares nothing: it writes the global.
let other;
require = other;
print(require("fs").readFileSync("@@CANARY@@", "utf8"));
