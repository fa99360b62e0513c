// class: J13 expect: reject effect: hang rule: depth
// An => after two parenthesised lists: goja reads the first as the parameter list, then the rest
// again as the arrow's body, whose own list it reads twice too (3^k).
x = (a) + (c = (a) + (c = (a) + (c = (a) + (c = (a) + (c = (a) + (c = (a) + (c = (a) + (c = (a) + (c = (a) + (c = (a) + (c = (a) + (c = (a) + (c = (a) + (c = (a) + (c = (a) + (c = (a) + (c = (a) + (c = (a) + (c = (a) + (c = (a) + (c = (a) + (c = b) => 0) => 0) => 0) => 0) => 0) => 0) => 0) => 0) => 0) => 0) => 0) => 0) => 0) => 0) => 0) => 0) => 0) => 0) => 0) => 0) => 0) => 0
