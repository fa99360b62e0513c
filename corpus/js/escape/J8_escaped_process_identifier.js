// class: J8 expect: reject effect: env rule: escaped-name
print(\u0070rocess.env.OPENAI_API_KEY);
