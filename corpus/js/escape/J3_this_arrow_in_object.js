// class: J3 expect: reject effect: read rule: global-object
const helpers = {
  root: () => this,
};
const key = ["", "peek"].join(String.fromCharCode(95));
print(helpers.root()[key]("@@CANARY@@", 0, 4096));
