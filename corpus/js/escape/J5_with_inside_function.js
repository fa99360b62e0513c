// class: J5 expect: reject effect: read rule: with
// `with` hidden inside a nested helper function.
function lookup(scope) {
  with (scope) {
    return constructor;
  }
}
const F = lookup(function () {});
print(F("return _read_file('@@CANARY@@')")());
