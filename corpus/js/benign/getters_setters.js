// want: 25 C=100 F=212\nrejected
class Temperature {
  #celsius = 0;
  get fahrenheit() {
    return this.#celsius * 9 / 5 + 32;
  }
  set celsius(v) {
    if (typeof v !== "number") throw new TypeError("number expected");
    this.#celsius = v;
  }
  get celsius() {
    return this.#celsius;
  }
}
const square = { side: 5, get area() { return this.side * this.side; } };
const t = new Temperature();
t.celsius = 100;
print(square.area, `C=${t.celsius}`, `F=${t.fahrenheit}`);
try {
  t.celsius = "hot";
} catch (e) {
  print("rejected");
}
