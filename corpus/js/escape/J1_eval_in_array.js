// class: J1 expect: reject effect: read rule: evaluator
// eval passed around as a value, never called by its own name.
const tools = [eval];
print(tools[0]("_read_file('@@CANARY@@')"));
