// class: J7 expect: reject effect: tamper rule: computed-member
// Computed keys on the assignment side: Object["prototype"]["toJSON"] = ...
Object[`proto` + `type`]["toJSON"] = () => "forged answer";
FINAL({ real: "answer" });
