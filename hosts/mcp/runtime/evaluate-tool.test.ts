import test, { type ExecutionContext } from "ava";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { tempDir } from "../../../test/support/temp-dir.js";
import { runtimeClient } from "./test-support/mcp-runtime-client.js";

/** A Node process with the inspector on a free port; resolves its ws:// URL, read from stderr. */
async function inspectedProcess(t: ExecutionContext, env: NodeJS.ProcessEnv = {}): Promise<{ url: string; pid: number }> {
  const child = spawn(process.execPath, ["--inspect=127.0.0.1:0", "-e", "globalThis.answer = 41; setInterval(() => {}, 1000)"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill();
      await once(child, "exit");
    }
  });
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /Debugger listening on (ws:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`node --inspect exited (${code}): ${stderr}`)));
  });
  return { url, pid: child.pid! };
}

test("evaluate is refused without SVC_MCP_EVAL=1, before any connection", async (t) => {
  const target = await inspectedProcess(t);
  for (const value of [undefined, "", "0", "false", "yes"]) {
    const call = await runtimeClient(t, tempDir(t, "svc-mcp-eval-"), { NODE_ENV: "development", SVC_MCP_EVAL: value });
    const answer = await call("evaluate", { expression: "globalThis.answer = 0", inspectorUrl: target.url });
    t.true(answer.isError, `SVC_MCP_EVAL=${value}`);
    t.regex(answer.text, /^MCP_RUNTIME_EVAL_DISABLED/);
  }
  // The refused calls did not run: the value is still the one the process set.
  const call = await runtimeClient(t, tempDir(t, "svc-mcp-eval-"), { NODE_ENV: "development", SVC_MCP_EVAL: "1" });
  t.is((await call("evaluate", { expression: "globalThis.answer", inspectorUrl: target.url })).json<{ value: number }>().value, 41);
});

test("with SVC_MCP_EVAL=1 it runs expressions in the inspected process", async (t) => {
  const target = await inspectedProcess(t);
  const call = await runtimeClient(t, tempDir(t, "svc-mcp-eval-"), { NODE_ENV: "development", SVC_MCP_EVAL: "true" });
  const run = async (expression: string) => (await call("evaluate", { expression, inspectorUrl: target.url })).json<Record<string, unknown>>();
  t.is((await run("process.pid")).value, target.pid);
  t.is((await run("globalThis.answer += 1")).value, 42);
  t.is((await run("globalThis.answer")).value, 42, "state persists in the target between calls");
  t.deepEqual((await run("({ list: [1, 'two'], nested: { ok: true } })")).value, { list: [1, "two"], nested: { ok: true } });
  t.is((await run("await Promise.resolve('later')")).value, "later");
  t.deepEqual(await run("new Map([[1, 'one']])"), { inspectorUrl: target.url, type: "object:map", value: [[1, "one"]], description: "Map(1)" });
  t.deepEqual((await run("new Date(0)")).value, "1970-01-01T00:00:00.000Z");
  t.deepEqual(await run("(function named() {})"), { inspectorUrl: target.url, type: "function", description: "function named() {}" });
  t.deepEqual((await run("10n ** 20n")).description, "100000000000000000000n");
  const cyclic = await run("(() => { const a = {}; a.self = a; return a; })()");
  t.is(cyclic.type, "object");
  t.is(cyclic.description, "Object", "not JSON-serialisable: described instead");
  t.regex(String((await run("undefinedVariable.x")).exception), /ReferenceError: undefinedVariable is not defined/);
  t.regex(String((await run("await Promise.reject(new TypeError('nope'))")).exception), /TypeError: nope/);
});

test("evaluate is refused in production: svc-mcp-local's or the target's NODE_ENV", async (t) => {
  const target = await inspectedProcess(t);
  const production = await runtimeClient(t, tempDir(t, "svc-mcp-eval-"), { NODE_ENV: "production", SVC_MCP_EVAL: "1" });
  const local = await production("evaluate", { expression: "1", inspectorUrl: target.url });
  t.regex(local.text, /^MCP_RUNTIME_EVAL_IN_PRODUCTION/);

  const productionTarget = await inspectedProcess(t, { NODE_ENV: "production" });
  const call = await runtimeClient(t, tempDir(t, "svc-mcp-eval-"), { NODE_ENV: "development", SVC_MCP_EVAL: "1" });
  const remote = await call("evaluate", { expression: "globalThis.answer = 0", inspectorUrl: productionTarget.url });
  t.true(remote.isError);
  t.regex(remote.text, /^MCP_RUNTIME_EVAL_IN_PRODUCTION/);
});

test("evaluate only connects to inspectors on this machine and says what to start when there is none", async (t) => {
  const call = await runtimeClient(t, tempDir(t, "svc-mcp-eval-"), { NODE_ENV: "development", SVC_MCP_EVAL: "1" });
  const remote = await call("evaluate", { expression: "1", inspectorUrl: "ws://203.0.113.7:9229/abc" });
  t.regex(remote.text, /^MCP_RUNTIME_INVALID_ARGUMENT/);
  const schema = await call("evaluate", { expression: "1", inspectorUrl: "http://127.0.0.1:9229/" });
  t.true(schema.isError, "not a ws:// URL");
  t.true((await call("evaluate", {})).isError, "expression is required");
  const closed = await call("evaluate", { expression: "1", inspectorUrl: "ws://127.0.0.1:1/none" });
  t.regex(closed.text, /^MCP_RUNTIME_INSPECTOR_FAILED/);
});
