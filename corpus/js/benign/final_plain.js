// final: 1234
const digits = [1, 2, 3, 4];
FINAL(digits.reduce((acc, d) => acc * 10 + d, 0));
