// class: J10 expect: reject effect: tamper rule: underscore
// A top-level function declaration replaces the global the trusted prelude's peek() calls.
function _peek(handle, off, n) {
  return "forged context";
}
FINAL(peek(context, 0, 10));
