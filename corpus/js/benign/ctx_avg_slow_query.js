// ctx: sample want: 10 slow queries, average 649.4 ms
const slow = search(context, "took [0-9]+ ms");
const total = slow.reduce((acc, h) => acc + Number(h.text.split(" ")[1]), 0);
print(`${slow.length} slow queries, average ${(total / slow.length).toFixed(1)} ms`);
