// class: J4 expect: reject effect: exec rule: host-access
const cp = require("child_process");
print(cp.execSync("id").toString());
