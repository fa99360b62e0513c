// class: J10 expect: reject effect: read rule: underscore
// The raw host peek, called with a path of the attacker's choosing instead of the context handle.
print(_peek("@@CANARY@@", 0, 4096));
