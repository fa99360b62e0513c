// want: collatz 27 steps 111\nfirst square over 50: 64
let n = 27;
let steps = 0;
while (true) {
  if (n === 1) break;
  n = n % 2 === 0 ? n / 2 : 3 * n + 1;
  steps++;
}
print("collatz 27 steps", steps);
function firstSquareOver(limit) {
  for (let i = 1; ; i++) {
    if (i * i > limit) return i * i;
  }
}
function check() {
  for (;;) {
    throw new Error("stop");
  }
}
try { check(); } catch (e) { /* expected */ }
print("first square over 50:", firstSquareOver(50));
