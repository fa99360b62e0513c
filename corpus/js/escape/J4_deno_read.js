// class: J4 expect: reject effect: read rule: host-access
Deno.readTextFile("@@CANARY@@").then((s) => print(s));
