import test from "ava";
import { stopTestDatabase } from "../../hosts/testing.js";
import { documentedAnswerProblem } from "../../test/support/documented-answer.js";
import { mcpTestApp } from "../../test/support/mcp-test-app.js";
import { sendRaw } from "../../test/support/raw-http.js";

test.after.always(() => stopTestDatabase());

test("POST /mcp documents its Accept requirement, and its real refusals (400, 406, 413, 415) match the document", async (t) => {
  const app = await mcpTestApp(t);
  const document = (await (await fetch(new URL("/openapi.json", app.running.url))).json()) as { paths: Record<string, Record<string, { description?: string }>> };
  t.regex(document.paths["/mcp"]!.post!.description!, /`Accept` header must list both `application\/json` and `text\/event-stream`/);
  const list = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" });
  const both = "application/json, text/event-stream";
  const post = async (headers: Record<string, string>, body: string) => {
    const answer = await sendRaw(app.running.url, { method: "POST", path: "/mcp", headers: { "content-type": "application/json", authorization: `Bearer ${app.owner.token}`, ...headers }, body });
    return { status: answer.status, body: answer.json() };
  };
  const answers = [
    await post({ accept: "application/json" }, list),
    await post({ accept: both }, JSON.stringify({ hello: "world" })),
    await post({ accept: both, "content-type": "text/plain" }, list),
    await post({ accept: both }, JSON.stringify({ ...JSON.parse(list), params: { pad: "x".repeat(2 * 1024 * 1024) } })),
  ];
  t.deepEqual(
    answers.map((answer) => answer.status),
    [406, 400, 415, 413],
  );
  for (const answer of answers) t.is(documentedAnswerProblem(document, "post", "/mcp", answer), undefined);
});
