// class: J10 expect: reject effect: read rule: underscore
// The hidden name appears only as a destructuring key.
const { _peek: rawPeek } = globalThis;
print(rawPeek("@@CANARY@@", 0, 4096));
