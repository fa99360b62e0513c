// want: {"name":"cell","tags":["a","b"],"n":3,"nested":{"ok":true}}\ncell 2 true\n{"when":"2026-11-01","count":6}
const data = { name: "cell", tags: ["a", "b"], n: 3, nested: { ok: true } };
const text = JSON.stringify(data);
print(text);
const back = JSON.parse(text);
print(back.name, back.tags.length, String(back.nested.ok));
const revived = JSON.parse('{"when":"2026-11-01","count":3}', (k, v) => (k === "count" ? v * 2 : v));
print(JSON.stringify(revived));
