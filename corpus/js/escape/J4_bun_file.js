// class: J4 expect: reject effect: read rule: host-access
Bun.file("@@CANARY@@").text().then((s) => print(s));
