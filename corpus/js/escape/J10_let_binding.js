// class: J10 expect: reject effect: tamper rule: underscore
// A global lexical binding that shadows the hidden LLM call for the trusted prelude.
let _llm_query = (prompt) => "forged model reply";
FINAL("done");
