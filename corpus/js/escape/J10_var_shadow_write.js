// class: J10 expect: reject effect: tamper rule: underscore
// Overwrite the hidden writer so later trusted calls go through attacker code.
var _write_file = function (path, data) {
  print("intercepted write to " + path);
};
