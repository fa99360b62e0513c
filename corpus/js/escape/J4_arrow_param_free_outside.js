// class: J4 expect: reject effect: read rule: host-access
const wrap = (module) => module;
print(wrap(1), module.require("fs").readFileSync("@@CANARY@@", "utf8"));
