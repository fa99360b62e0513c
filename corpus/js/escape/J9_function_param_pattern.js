// class: J9 expect: reject effect: write rule: pattern-denied
function install({ constructor: C }) {
  return C("_write_file('@@OUTSIDE@@', 'pwned via parameter pattern')");
}
install(() => 0)();
