// class: J2 expect: reject effect: hang rule: reflection
// GC-observable references: the callback runs on the host's schedule, after the time limit is checked.
const target = { big: [1, 2, 3] };
const ref = new WeakRef(target);
const registry = new FinalizationRegistry(() => {
  for (let i = 0; i >= 0; i++) { /* spins in host-scheduled cleanup */ }
});
registry.register(ref.deref(), "held");
