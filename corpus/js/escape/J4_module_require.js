// class: J4 expect: reject effect: read rule: host-access
const fs = module.require("fs");
print(fs.readFileSync("@@CANARY@@", "utf8"));
