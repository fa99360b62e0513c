// want: 2026 11 01\n01/11/2026\n3 matches: 10,20,30
const m = /(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})/.exec("on 2026-11-01 at noon");
print(m.groups.year, m.groups.month, m.groups.day);
print("2026-11-01".replace(/(?<y>\d{4})-(?<m>\d{2})-(?<d>\d{2})/, "$<d>/$<m>/$<y>"));
const nums = [..."a10 b20 c30".matchAll(/[a-z](?<n>\d+)/g)].map((x) => x.groups.n);
print(`${nums.length} matches: ${nums.join(",")}`);
