// want: never eval input; 2 words
// This cell does not eval anything, never builds a Function from strings,
// and does not touch the global object: the words only appear in prose.
const advice = "never eval input";
/* Mentioning require or process in a comment is harmless too. */
print(advice + ";", advice.split(" ").filter((w) => w.length > 4).length, "words");
