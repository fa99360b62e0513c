// ctx: sample want: processed 121 lines, 29 logins
// Near-miss names: processed, requirement, globalCount are ordinary identifiers.
let processed = 0;
let globalCount = 0;
const requirement = "logged in";
let carry = "";
for (const c of chunk(context, 500, 0)) {
  const lines = (carry + peek(context, c.start, c.end - c.start)).split("\n");
  carry = lines.pop();
  for (const line of lines) {
    processed++;
    if (line.endsWith(requirement)) globalCount++;
  }
}
if (carry !== "") processed++;
print(`processed ${processed} lines, ${globalCount} logins`);
