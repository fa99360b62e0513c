// want: TypeError true\nRangeError true\nSyntaxError true
const probes = [
  ["TypeError", () => null.x],
  ["RangeError", () => (1).toFixed(500)],
  ["SyntaxError", () => JSON.parse("{bad")],
];
for (const [name, fn] of probes) {
  try {
    fn();
    print(name, "false");
  } catch (e) {
    print(name, String(e.name === name));
  }
}
