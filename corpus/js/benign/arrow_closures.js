// want: 1 2 3 10
const makeCounter = (start = 0) => {
  let n = start;
  return () => ++n;
};
const next = makeCounter();
const a = next();
const b = next();
const c = next();
const fromNine = makeCounter(9);
print(a, b, c, fromNine());
