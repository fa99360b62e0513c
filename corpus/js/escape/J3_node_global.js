// class: J3 expect: reject effect: read rule: global-object
const key = String.fromCharCode(95) + "read_file";
print(global[key]("@@CANARY@@"));
