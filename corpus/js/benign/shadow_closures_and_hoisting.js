// want: undefined 120 7 4
function before() {
  const seen = self;
  var self = 1;
  return seen;
}
const fact = function self(n) { return n <= 1 ? 1 : n * self(n - 1); };
class Counter {
  constructor() {
    const self = this;
    this.n = 6;
    this.inc = () => ++self.n;
  }
}
let window = 0;
for (let frames = 0; frames < 4; frames++) window++;
print(before(), fact(5), new Counter().inc(), window);
