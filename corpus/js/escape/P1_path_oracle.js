// class: P1 expect: contain effect: oracle
// Probe paths outside the roots with file_info: files that exist and files that do not, links to
// each, /proc/self. Landlock does not cover lstat or readlink, so only the guard stands between
// these calls and a map of the host: every answer must be the same message (the probed path
// aside), naming no target.
const probe = (p) => {
  try {
    const info = file_info(p);
    return `found ${info.name} (${info.size} bytes)`;
  } catch (e) {
    return e.message.split(p).join("PATH");
  }
};
const paths = ["@@LINK@@", "@@DANGLING@@", "@@CANARY@@", "@@CANARY@@.missing",
  "/proc/self/root@@CANARY@@", "/proc/self/root/etc/shadow", "/proc/self/root/etc/no-such-file",
  "/proc/self/exe", "/proc/self/cwd", "@@DIRLINK@@/secret.txt", "@@DIRLINK@@/missing.txt",
  "/etc/alternatives/awk", "/etc/shadow", "@@ROOT@@/../../../../../../etc/shadow"];
for (const p of paths) print(probe(p));
