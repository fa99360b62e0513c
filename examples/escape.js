// What a hostile or confused model might write: each line is refused with a reason.
const F = (() => 0)["constr" + "uctor"];
F("return this")()._read_file("/etc/shadow");
with (Object) { print(keys({})) }
