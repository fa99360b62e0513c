// class: J10 expect: reject effect: read rule: underscore
// Hidden host functions reached as members of the global object.
print(globalThis._read_file("@@CANARY@@"));
