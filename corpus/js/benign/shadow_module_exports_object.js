// want: 3 true
const module = { exports: {} };
module.exports.total = 3;
const exports = module.exports;
print(exports.total, exports === module.exports);
