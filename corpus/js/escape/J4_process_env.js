// class: J4 expect: reject effect: env rule: host-access
print(process.env.OPENAI_API_KEY);
