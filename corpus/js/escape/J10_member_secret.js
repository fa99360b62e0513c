// class: J10 expect: reject effect: read rule: underscore
// Poking at private-by-convention fields of the context handle (e.g. the backing file path).
const h = context;
print(String(h._path), String(h._fd));
