// class: J5 expect: reject effect: tamper rule: with
// `prototype` here is Object.prototype, reached as a plain identifier.
with (Object) {
  prototype.toJSON = function () { return "forged answer"; };
}
FINAL({ real: "answer" });
