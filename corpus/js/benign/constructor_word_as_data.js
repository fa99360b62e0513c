// want: {"constructor":1,"kind":"data"}\nCONSTRUCTOR 11\ntrue
// The word "constructor" as a data key and as a string value is fine.
const record = { constructor: 1, kind: "data" };
print(JSON.stringify(record));
const word = "constructor";
print(word.toUpperCase(), word.length);
print(String(Object.keys(record).includes(word)));
