// want: start\nend\nvalue 42\ndone 3
// Jobs run after the synchronous part of the cell.
async function compute() {
  const v = await Promise.resolve(21);
  return v * 2;
}
async function main() {
  print("value", await compute());
  const all = await Promise.all([1, 2, 3].map(async (x) => x));
  print("done", all.length);
}
print("start");
main();
print("end");
