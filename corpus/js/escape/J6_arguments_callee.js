// class: J6 expect: reject effect: read rule: member-denied
// Walk from the current frame to whoever called it (a trusted prelude frame, in the attack).
function probe() {
  const self2 = arguments.callee;
  return self2.caller;
}
const up = [1].map(probe)[0];
print(String(up));
