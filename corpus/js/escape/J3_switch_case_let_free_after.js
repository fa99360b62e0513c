// class: J3 expect: reject effect: read rule: global-object
switch (1) {
  case 1:
    let frames = 2;
    print(frames);
}
print(frames.Function("return _read_file(\"@@CANARY@@\")")());
