// The end-to-end test of `rlm mcp` with the official TypeScript MCP client. cmd/rlm/mcp_test.go
// runs it with node after installing package-lock.json's packages into a cache directory.
//
// Environment: RLM_BIN (the rlm executable), DEMO_DIR (examples/demo), and either nothing (the
// client starts `rlm mcp` over stdio, passing RLM_HOME and the model's RLM_* variables on) or
// MCP_URL and MCP_TOKEN (streamable HTTP to a running `rlm mcp --http`).
// Every check is an assertion: a failure exits non-zero with the reason. The last line of stdout
// is "OK " and a JSON summary the Go test checks again.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const env = process.env;
const demo = env.DEMO_DIR;
assert.ok(demo, "DEMO_DIR is not set");

function transport() {
  if (env.MCP_URL) {
    return new StreamableHTTPClientTransport(new URL(env.MCP_URL), {
      requestInit: { headers: { Authorization: `Bearer ${env.MCP_TOKEN}` } },
    });
  }
  const pass = {};
  for (const k of ["PATH", "HOME", "RLM_HOME", "RLM_BASE_URL", "RLM_API_KEY", "RLM_MODEL"]) {
    if (env[k] !== undefined) pass[k] = env[k];
  }
  return new StdioClientTransport({ command: env.RLM_BIN, args: ["mcp", "--root", demo, "--cell-timeout", "10s"], env: pass, stderr: "inherit" });
}

const client = new Client({ name: "rlm-ts-e2e", version: "1.0.0" });
await client.connect(transport());

// The tools, each with its schemas.
const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
assert.deepEqual(names, ["rlm_ask", "sandbox_close", "sandbox_exec", "sandbox_open", "validate"]);
for (const t of tools) {
  assert.equal(t.inputSchema.type, "object", `${t.name}: input schema`);
  assert.ok(t.outputSchema, `${t.name}: output schema`);
  assert.ok(t.description.length > 40, `${t.name}: description`);
}
const exec = tools.find((t) => t.name === "sandbox_exec");
assert.deepEqual(exec.inputSchema.required.sort(), ["code", "session"]);

const textOf = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("");
async function call(name, args) {
  return client.callTool({ name, arguments: args });
}

// A session: state across calls, a runaway loop stopped by the timeout, escapes rejected.
const opened = await call("sandbox_open", { lang: "js", files: ["app.log"], cell_timeout_seconds: 4 });
assert.ok(!opened.isError, textOf(opened));
const sid = opened.structuredContent.session;
assert.match(sid, /^s-[0-9a-f]{32}$/);
assert.ok(opened.structuredContent.api.some((l) => l.startsWith("peek(ctx, offset, length)")));

let r = await call("sandbox_exec", { session: sid, code: 'const errs = search(context, "ERROR svc=payment"); print(errs.length, "payment errors")' });
assert.ok(!r.isError, textOf(r));
assert.equal(r.structuredContent.output, "13 payment errors\n");
assert.ok(r.structuredContent.vars.includes("errs"));

r = await call("sandbox_exec", { session: sid, code: "const byUser = {};\nfor (const m of errs) { const u = m.line_text.split('user=')[1].split(' ')[0]; byUser[u] = (byUser[u] ?? 0) + 1 }\nprint(Object.keys(byUser).length)" });
assert.ok(!r.isError, textOf(r));
const users = Number(r.structuredContent.output.trim());
assert.ok(users > 1 && users <= 13, `users ${users}`);

const t0 = Date.now();
r = await call("sandbox_exec", { session: sid, code: "let i = 0; const t = Date.now(); while (Date.now() - t < 600000) { i++ }" });
const loopMs = Date.now() - t0;
assert.equal(r.isError, true);
assert.equal(r.structuredContent.error.kind, "timeout");
assert.ok(loopMs < 30000, `the runaway loop took ${loopMs} ms`);
assert.match(textOf(r), /error \(timeout\)/);

const escapes = [
  'require("child_process").execSync("id")',
  'globalThis.process.exit(1)',
  'const F = (() => 0).constructor; F("return this")()',
  'import("fs")',
];
const rejected = [];
for (const code of escapes) {
  r = await call("sandbox_exec", { session: sid, code });
  assert.equal(r.isError, true, `escape ran: ${code}`);
  assert.equal(r.structuredContent.error.kind, "rejected", `${code}: ${textOf(r)}`);
  rejected.push(r.structuredContent.error.message);
}
r = await call("sandbox_exec", { session: sid, code: 'print(read_file("/etc/passwd"))' });
assert.equal(r.isError, true);
assert.equal(r.structuredContent.error.kind, "denied");

r = await call("sandbox_exec", { session: sid, code: "FINAL(errs.length + Object.keys(byUser).length)" });
assert.ok(!r.isError, textOf(r));
assert.equal(r.structuredContent.final, String(13 + users));

r = await call("sandbox_close", { session: sid });
assert.ok(!r.isError, textOf(r));
r = await call("sandbox_exec", { session: sid, code: "print(1)" });
assert.equal(r.isError, true);
assert.match(textOf(r), /sandbox_open/);

// A file outside the roots is refused, with what to do.
r = await call("sandbox_open", { lang: "js", files: ["/etc/passwd"] });
assert.equal(r.isError, true);
assert.match(textOf(r), /outside the directories this server may read/);

// validate.
r = await call("validate", { lang: "go", code: 'import "os"\nos.Exit(1)' });
assert.equal(r.structuredContent.ok, false);
assert.match(r.structuredContent.findings[0].pos, /^cell\.go:1:/);

// rlm_ask with the fake model: progress notifications, the answer, the trace as a resource.
const progress = [];
r = await client.callTool(
  { name: "rlm_ask", arguments: { question: "Which user had the most payment errors, and what went wrong?", files: ["app.log"], lang: "js", mode: "loop" } },
  undefined,
  { onprogress: (p) => progress.push(p), timeout: 120000 },
);
assert.ok(!r.isError, textOf(r));
const ask = r.structuredContent;
assert.equal(ask.status, "answered");
assert.equal(ask.answer, "13 payment errors; u0011 had the most (2). Card payments were declined by the processor (code 51).");
assert.equal(ask.usage.iterations, 2);
assert.equal(ask.usage.api_calls, 3);
assert.ok(progress.length >= 4, `${progress.length} progress notifications`);
assert.match(progress[0].message, /^starting/);
const { resources } = await client.listResources();
assert.ok(resources.some((x) => x.uri === ask.trace_resource), "the trace is not a resource");
const read = await client.readResource({ uri: ask.trace_resource });
assert.match(read.contents[0].text, /"metadata"/);

await client.close();
console.log("OK " + JSON.stringify({ tools: names, users, loop_ms: loopMs, rejected: rejected.length, answer: ask.answer, task_id: ask.task_id, progress: progress.length }));
