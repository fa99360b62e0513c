// class: J11 expect: reject effect: env rule: source-map
// The host process environment, read as a "source map" by the parser.
print(1 + 1);
//# sourceMappingURL=/proc/self/environ
