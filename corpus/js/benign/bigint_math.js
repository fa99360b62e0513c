// want: 18446744073709551616 15511210043330985984000000 true
let fact = 1n;
for (let i = 1n; i <= 25n; i++) fact *= i;
const big = 2n ** 64n;
print(big.toString(), String(fact), String(big > 10n ** 19n));
