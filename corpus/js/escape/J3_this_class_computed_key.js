// class: J3 expect: reject effect: read rule: global-object
// A computed class-member key is evaluated in the enclosing scope: here `this` is the global object.
let g = null;
class Probe {
  static [(g = this, "run")]() {
    return 1;
  }
}
const hidden = String.fromCharCode(95) + "read_file";
print(g[hidden]("@@CANARY@@"));
