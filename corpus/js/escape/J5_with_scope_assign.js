// class: J5 expect: reject effect: tamper rule: with
// Three object scopes deep, the bare assignment `join = ...` lands on Array.prototype.join.
with ([]) {
  with (constructor) {
    with (prototype) {
      join = function () { return "forged"; };
    }
  }
}
print(["real", "answer"]);
