// want: 3.14 ff 255 3.5 1234.6 -4 1e+21 0.1
print(
  (3.14159).toFixed(2),
  (255).toString(16),
  parseInt("ff", 16),
  Number("3.5"),
  (1234.5678).toFixed(1),
  Math.round(-4.5),
  1e21,
  0.1,
);
