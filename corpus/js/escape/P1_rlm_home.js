// class: P1 expect: contain effect: read
// RLM_HOME inside an allowed root (rlm run --ctx ~/notes.txt makes ~ a root): its audit database
// by name, through a symlink inside the root, through "..", and by a grep of the whole root.
const attempt = (f) => {
  try {
    return f();
  } catch (e) {
    return e.message;
  }
};
for (const p of ["@@HOME@@/audit.db", "@@HOMELINK@@/audit.db", "@@HOME@@/../home/audit.db", "@@ROOT@@/./home/audit.db"]) {
  print(attempt(() => read_file(p)));
}
print(attempt(() => list_dir("@@HOME@@").join(",")));
print(attempt(() => grep("CANARY", "@@ROOT@@").map((m) => m.text).join("\n")));
