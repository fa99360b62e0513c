// want: 3 6 boom 5
const { global, process } = { global: 1, process: 2 };
function combine(self, exports, [window] = [3]) {
  return self + exports + window;
}
try {
  throw new Error("boom");
} catch (self) {
  print(global + process, combine(1, 2), self.message, [5].map((frames) => frames)[0]);
}
