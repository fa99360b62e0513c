// ctx: sample final: blue-harbor-42
// Find the note, then pull the passphrase out of it.
const note = search(context, "passphrase")[0];
const line = peek(context, note.start, 60).split("\n")[0];
const m = search(context, "blue-[a-z]+-[0-9]+");
const answer = m.length === 1 && line.includes(m[0].text) ? m[0].text : "not found";
FINAL(answer);
