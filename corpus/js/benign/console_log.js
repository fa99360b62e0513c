// want: hello 1 2\nline two
console.log("hello", 1, 2);
console.log("line two");
