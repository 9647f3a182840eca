import test from "ava";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { consumerProject, runIn, startUserApp, USER_COMPILER_OPTIONS } from "./support/consumer-project.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The files of the example project (app and tests) that docs/getting-started.md builds, block by block. */
async function gettingStartedFiles(): Promise<Map<string, string>> {
  const markdown = await readFile(path.join(root, "docs/getting-started.md"), "utf8");
  const files = new Map<string, string>();
  for (const match of markdown.matchAll(/```ts\n(\/\/ ((?:src|test)\/[\w/.-]+\.ts)\n[\s\S]*?)```/g)) files.set(match[2]!, match[1]!);
  return files;
}

async function call(url: string, method: string, body?: unknown, token?: string): Promise<{ status: number; body: any; location: string | null }> {
  const response = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, location: response.headers.get("location") };
}

// The first hour of a new user, end to end: install the packed package (no links), write the
// getting-started blog app, type-check it strictly (library types included), run it, use it over
// HTTP, and run the user's own tests written with svc/testing.
test("a new user installs svc, builds the getting-started blog, runs it and tests it", async (t) => {
  t.timeout(10 * 60_000);
  const project = await consumerProject(t, ["@types/node@^20", "tsx@^4", "supertest@^7", "@types/supertest@^7"]);
  const files = await gettingStartedFiles();
  t.deepEqual([...files.keys()].sort(), ["src/app.ts", "src/main.ts", "src/models.ts", "test/blog.test.ts"]);
  for (const [file, code] of files) await project.write(file, code);
  await project.write("tsconfig.json", JSON.stringify({ compilerOptions: USER_COMPILER_OPTIONS, include: ["src", "test"] }));
  t.is(await project.typecheck(), "", "the blog and its tests type-check with strict and skipLibCheck: false");

  // Run it and use it.
  const url = await startUserApp(t, project.dir);
  const ada = await call(`${url}/auth/signup`, "POST", { email: "ada@example.com", password: "a long passphrase" });
  t.is(ada.status, 201, JSON.stringify(ada.body));
  const token = ada.body.data.token as string;
  const created = await call(`${url}/posts`, "POST", { title: "Hello", body: "First post" }, token);
  t.is(created.status, 201, JSON.stringify(created.body));
  t.is(created.location, `/posts/${created.body.data.id}`);
  t.is(created.body.data.ownerId, ada.body.data.userId);
  // A draft is the author's alone: anonymous readers do not learn it exists.
  t.is((await call(`${url}/posts/${created.body.data.id}`, "GET")).status, 404);
  t.is((await call(`${url}/posts`, "GET")).body.total, 0);
  const published = await call(`${url}/posts/${created.body.data.id}`, "PATCH", { published: true }, token);
  t.is(published.status, 200, JSON.stringify(published.body));
  const list = await call(`${url}/posts?published=true`, "GET");
  t.deepEqual(list.body.data.map((post: { title: string }) => post.title), ["Hello"]);
  const comment = await call(`${url}/comments`, "POST", { postId: created.body.data.id, text: "Nice" }, token);
  t.is(comment.status, 201, JSON.stringify(comment.body));

  // The user's own tests, with svc/testing, under node:test.
  const report = await runIn(project.dir, process.execPath, ["--import", "tsx", "--test", "test/blog.test.ts"], { NODE_ENV: "test" });
  t.regex(report, /# pass [1-9]/);
  t.regex(report, /# fail 0/);
});
