// class: J5 expect: reject effect: read rule: with
// The async function's constructor is AsyncFunction, another code evaluator.
with (async function () {}) {
  constructor("return _read_file('@@CANARY@@')")().then((s) => print(s));
}
