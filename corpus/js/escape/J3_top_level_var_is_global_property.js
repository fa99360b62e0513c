// class: J3 expect: reject effect: read rule: global-object
// A top-level var is the global object's property: it keeps the host's value.
var self;
print(self.Function("return _read_file(\"@@CANARY@@\")")());
