// ctx: sample want: 140 145 naïve-cache 11
// Offsets count characters (code points), so the peek lines up with the match.
const hit = search(context, "naïve")[0];
const word = peek(context, hit.start, 11);
print(hit.start, hit.end, word, [...word].length);
