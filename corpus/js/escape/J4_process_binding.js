// class: J4 expect: reject effect: read rule: host-access
// The internal binding layer reads files below the module system's permission checks.
const fsb = process.binding("fs");
print(String(fsb.readFileUtf8("@@CANARY@@", 0)));
