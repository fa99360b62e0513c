// class: J8 expect: reject effect: read rule: escaped-name
// \u0065val is the identifier eval, spelled so a text match on "eval" misses it.
print(\u0065val("_read_file('@@CANARY@@')"));
