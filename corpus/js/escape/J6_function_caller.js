// class: J6 expect: reject effect: read rule: member-denied
// A callback grabbing its caller: if the trusted prelude calls user code, this leaks the prelude function.
let leaked = null;
function spy() {
  leaked = spy.caller;
  return 0;
}
search(context, "ERROR").map(spy);
print(String(leaked));
