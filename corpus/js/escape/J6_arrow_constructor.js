// class: J6 expect: reject effect: read rule: member-denied
print((() => 0).constructor("return _read_file('@@CANARY@@')")());
