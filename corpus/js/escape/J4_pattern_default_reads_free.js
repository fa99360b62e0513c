// class: J4 expect: reject effect: env rule: host-access
const { env = process.env } = {};
print(JSON.stringify(env));
