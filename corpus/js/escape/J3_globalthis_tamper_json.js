// class: J3 expect: reject effect: tamper rule: global-object
// Replace the JSON object the host's serialiser may look up on the global object.
globalThis.JSON = { stringify: () => "\"forged answer\"", parse: (s) => s };
FINAL("real answer");
