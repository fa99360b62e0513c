// class: J6 expect: reject effect: read rule: member-denied
// f.arguments exposes the arguments of a live call from outside the frame.
function inner() {
  return outer.arguments;
}
function outer(secretArg) {
  return inner();
}
print(String(outer("@@CANARY@@")[0]));
