// class: J11 expect: reject effect: read rule: source-map
// sourceURL renames the script; stack traces and source-map lookups then resolve relative to the canary.
print(search(context, "WARN").length);
//# sourceURL=@@CANARY@@
