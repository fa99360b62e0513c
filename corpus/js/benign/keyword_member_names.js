// want: 6 gone made in
// Reserved words are valid property names; `api.with` is a method, not a with statement.
const api = {
  with(x) { return x * 2; },
  delete() { return "gone"; },
  new() { return "made"; },
  in: "in",
};
print(api.with(3), api.delete(), api.new(), api.in);
