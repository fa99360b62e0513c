// class: P1 expect: contain effect: oracle
// RLM_HOME inside an allowed root must answer as a path outside the roots does: file_info of
// what is in it, of what is not, through a symlink and "..", answered exactly as the canary
// outside the roots is.
const probe = (p) => {
  try {
    const info = file_info(p);
    return `found ${info.name} (${info.size} bytes)`;
  } catch (e) {
    return e.message.split(p).join("PATH");
  }
};
const paths = ["@@HOME@@", "@@HOME@@/audit.db", "@@HOME@@/missing", "@@HOMELINK@@/audit.db",
  "@@HOME@@/../home/audit.db", "@@CANARY@@", "@@CANARY@@.missing"];
for (const p of paths) print(probe(p));
