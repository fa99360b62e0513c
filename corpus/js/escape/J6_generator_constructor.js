// class: J6 expect: reject effect: read rule: member-denied
// GeneratorFunction is also a code evaluator.
const GF = (function* () {}).constructor;
print(GF("yield _read_file('@@CANARY@@')")().next().value);
