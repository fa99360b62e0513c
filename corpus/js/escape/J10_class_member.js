// class: J10 expect: reject effect: read rule: underscore
// An underscore-named method that forwards to the hidden reader.
class Reader {
  static _open(path) {
    return _read_file(path);
  }
}
print(Reader._open("@@CANARY@@"));
