// want: INFO ERROR 2
function process(line) {
  return line.split(" ")[1];
}
const lines = ["t1 INFO a", "t2 ERROR b"];
let errors = 0;
for (const self of lines) if (process(self) === "ERROR") errors += 2;
print(lines.map(process).join(" "), errors);
