// class: J7 expect: reject effect: read rule: computed-member
print((() => 0)["constructor"]("return _read_file('@@CANARY@@')")());
