// want: {"_id":7,"_rev":"3-a","name":"doc"}\n_id,_rev,name\n7|3-a|doc
// Underscore-prefixed keys as object-literal data are allowed; only reading them as members is not.
const rec = { _id: 7, _rev: "3-a", name: "doc" };
print(JSON.stringify(rec));
print(Object.keys(rec).join(","));
print(Object.values(rec).join("|"));
