// class: J11 expect: reject effect: hang rule: source-map
// goja's parser would try to read the named source map: /dev/zero never ends.
print(length(context));
//# sourceMappingURL=file:///dev/zero
