// class: J2 expect: reject effect: crash rule: reflection
// A proxy that lies to the host exporter about its length.
const liar = new Proxy([], {
  get(target, key) {
    return key === "length" ? 4294967295 : "x";
  },
});
FINAL(liar);
