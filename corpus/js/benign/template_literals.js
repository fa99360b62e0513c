// want: Hello, World! 2 + 3 = 5\nnested: [inner 6]\n<b>x</b>=<i>1</i>
const who = "World";
print(`Hello, ${who}! 2 + 3 = ${2 + 3}`);
print(`nested: ${`[inner ${2 * 3}]`}`);
function tag(strings, ...values) {
  return strings.reduce((out, s, i) => out + s + (i < values.length ? `<i>${values[i]}</i>` : ""), "");
}
print(tag`<b>x</b>=${1}`);
