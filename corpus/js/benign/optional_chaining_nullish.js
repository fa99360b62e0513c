// want: Paris none 0 first 7 fallback
const user = { address: { city: "Paris" }, tags: ["first"], score: 0 };
const nobody = null;
let cache = null;
cache ??= 7;
let label = "";
label ||= "fallback";
print(user.address?.city, nobody?.address?.city ?? "none", user.score ?? 99, user.tags?.[0], cache, label);
