// want: Point(3, 4) 5
// Class constructors are allowed: `constructor` here is a method definition, not a member access.
class Point {
  constructor(x, y) {
    this.x = x;
    this.y = y;
  }
  norm() {
    return Math.hypot(this.x, this.y);
  }
  toString() {
    return `Point(${this.x}, ${this.y})`;
  }
}
const p = new Point(3, 4);
print(String(p), p.norm());
