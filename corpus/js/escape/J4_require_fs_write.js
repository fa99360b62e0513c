// class: J4 expect: reject effect: write rule: host-access
const { writeFileSync } = require("fs");
writeFileSync("@@OUTSIDE@@", "pwned via require");
