// class: J11 expect: reject effect: read rule: source-map
print(peek(context, 0, 20));
/*# sourceMappingURL=@@CANARY@@ */
