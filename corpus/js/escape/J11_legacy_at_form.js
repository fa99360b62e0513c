// class: J11 expect: reject effect: read rule: source-map
// The legacy //@ spelling names the canary as the source map; its content leaks through parse errors.
print(count(context, "ERROR"));
//@ sourceMappingURL=@@CANARY@@
