// class: J7 expect: reject effect: write rule: computed-member
const helper = {
  grab() {
    return super["constr" + "uctor"];
  },
};
// super is Object.prototype here; its constructor is Object, whose constructor is Function.
const F = helper.grab()["constructor"];
F("_write_file('@@OUTSIDE@@', 'pwned via super')")();
