// class: J11 expect: reject effect: read rule: source-map
const n = length(context);
//# sourceMappingURL=file://@@CANARY@@
print(n);
