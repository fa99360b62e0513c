// want: 3 2 false
class Counter {
  #count = 0;
  static #made = 0;
  constructor() {
    Counter.#made++;
  }
  #bump() {
    this.#count++;
  }
  tick() {
    this.#bump();
    return this.#count;
  }
  static made() {
    return Counter.#made;
  }
  static owns(o) {
    return #count in o;
  }
}
const c = new Counter();
c.tick();
c.tick();
new Counter();
print(c.tick(), Counter.made(), String(Counter.owns({})));
