// class: J4 expect: reject effect: read rule: host-access
// Note: goja's parser rejects import() as a syntax error; kept so the validator must reject it anyway.
import("fs").then((fs) => print(fs.readFileSync("@@CANARY@@", "utf8")));
