// class: J3 expect: reject effect: read rule: global-object
// A default value sees the parameters, never the body: this self is the global one.
function grab(g = self) {
  var self = 0;
  return g;
}
print(grab().Function("return _read_file(\"@@CANARY@@\")")());
