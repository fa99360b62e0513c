// class: J3 expect: reject effect: read rule: global-object
for (const self of [1, 2]) print(self);
print(self["Func" + "tion"]("return _read_file(\"@@CANARY@@\")")());
