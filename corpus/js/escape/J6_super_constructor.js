// class: J6 expect: reject effect: read rule: member-denied
// In a static method of a base class, super is Function.prototype, so super.constructor is Function.
class Helper {
  static make() {
    return super.constructor;
  }
}
const F = Helper.make();
print(F("return _read_file('@@CANARY@@')")());
