// class: J4 expect: reject effect: read rule: host-access
// Note: import.meta is a syntax error outside modules (goja and node); kept as a parser-level case.
const here = import.meta.url;
print(here);
