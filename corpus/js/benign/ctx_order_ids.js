// ctx: sample final: 51,71,289,828,932,558
const ids = search(context, "#[0-9]+").map((h) => Number(h.text.slice(1)));
FINAL(ids.join(","));
