// want: Rex says woof (animal: Rex)\ntrue true\ndog-2
class Animal {
  static count = 0;
  constructor(name) {
    this.name = name;
    Animal.count++;
  }
  describe() {
    return `animal: ${this.name}`;
  }
}
class Dog extends Animal {
  static create(name) {
    return new Dog(name);
  }
  describe() {
    return `${this.name} says woof (${super.describe()})`;
  }
}
const d = Dog.create("Rex");
new Animal("Tom");
print(d.describe());
print(String(d instanceof Dog), String(d instanceof Animal));
print(`dog-${Animal.count}`);
