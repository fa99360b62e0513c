// class: J4 expect: reject effect: tamper rule: host-access
// Replace what a CommonJS-style host would pick up as this cell's result.
exports.answer = "forged answer";
exports.toJSON = () => "forged answer";
