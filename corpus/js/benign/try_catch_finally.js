// want: try\ncaught ValidationError: bad input\nfinally\nresult 2\nrethrown ok
class ValidationError extends Error {
  constructor(message) {
    super(message);
    this.name = "ValidationError";
  }
}
function attempt() {
  try {
    print("try");
    throw new ValidationError("bad input");
  } catch (e) {
    print("caught " + e.name + ": " + e.message);
    return 1;
  } finally {
    print("finally");
  }
}
const r = attempt() + 1;
print("result", r);
try {
  try {
    throw new RangeError("inner");
  } catch (e) {
    if (e instanceof RangeError) throw new Error("rethrown");
  }
} catch (e) {
  print(e.message, "ok");
}
