// class: J5 expect: reject effect: write rule: with
// Two scopes deep: [] -> Array, then Array -> Function, all through bare identifiers.
with ([]) {
  with (constructor) {
    constructor("_write_file('@@OUTSIDE@@', 'pwned via with')")();
  }
}
