// want: 2 x
switch (2) {
  case 2: {
    const global = 2;
    print(global, (() => { const module = "x"; return module; })());
  }
}
