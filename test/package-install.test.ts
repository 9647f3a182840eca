import test from "ava";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { tscCli as tsc } from "./support/consumer-project.js";

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// A separate project installs this repo by path and uses it the way a user would: the built
// ESM entry at runtime and the emitted .d.ts files at compile time.
/** What `npm pack` would publish; test helpers, fixtures and snapshots (ava's .snap and .md reports) must not be in it. */
const TEST_ONLY = /(^|\/)(test-support|test-fixtures|fixtures|snapshots|__snapshots__)\/|\.test\.|\.snap$|session-test-client|raw-wire-client|crash-writer-child/;

test("a project that installs svc by path can import SvcApp, with types", async (t) => {
  // The build script starts from an empty dist/, so nothing stale is published.
  await run("npm", ["run", "build", "--silent"], { cwd: root });
  const [packed] = JSON.parse((await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root })).stdout) as [{ files: { path: string }[] }];
  const published = packed.files.map((file) => file.path);
  t.true(published.includes("dist/index.js") && published.includes("dist/index.d.ts"));
  t.deepEqual(published.filter((file) => TEST_ONLY.test(file)), [], "dist ships no test helper or fixture");
  // The admin web UI ships built (its React source and esbuild are not in the package), and the
  // built admin serves that bundle.
  t.true(published.includes("dist/plugins/admin/ui-bundle/main.js"));
  t.false(published.some((file) => file.startsWith("dist/plugins/admin/ui/")), "no UI source in dist");
  const { adminUiAssets } = (await import(path.join(root, "dist/plugins/admin/admin-ui-bundle.js"))) as typeof import("../plugins/admin/admin-ui-bundle.js");
  t.deepEqual((await adminUiAssets()).get("main.js")?.body, await readFile(path.join(root, "dist/plugins/admin/ui-bundle/main.js")));

  const project = await mkdtemp(path.join(tmpdir(), "svc-consumer-"));
  t.teardown(() => rm(project, { recursive: true, force: true }));
  await writeFile(
    path.join(project, "package.json"),
    JSON.stringify({ name: "consumer", version: "1.0.0", type: "module", private: true }),
  );
  await run("npm", ["install", root, "--no-audit", "--no-fund", "--offline", "--loglevel=error"], { cwd: project });

  await writeFile(
    path.join(project, "main.mjs"),
    `import { SvcApp, HTTP_ROUTER } from "svc";
const app = new SvcApp({ env: { NODE_ENV: "test" }, database: false, port: 0, handleSignals: false })
  .register({ name: "hello", start(ctx) { ctx.resolve(HTTP_ROUTER).get("/hi", (_q, r) => r.json({ data: "hi" })); } });
const running = await app.start();
const body = await (await fetch(running.url + "/hi")).json();
await app.stop();
console.log(JSON.stringify(body));
`,
  );
  const { stdout } = await run(process.execPath, ["main.mjs"], { cwd: project, env: { ...process.env, NODE_ENV: "test" } });
  t.is(stdout.trim().split("\n").at(-1), JSON.stringify({ data: "hi" }));

  // The published types resolve under NodeNext, and misuse is a type error.
  await writeFile(
    path.join(project, "check.ts"),
    `import { SvcApp, type SvcPlugin } from "svc";
const plugin: SvcPlugin = { name: "x", start() {} };
new SvcApp({ database: false }).register(plugin);
`,
  );
  await writeFile(
    path.join(project, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ["check.ts"] }),
  );
  await t.notThrowsAsync(run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: project }));

  // The README's example app compiles as written (the docs stay true).
  const readme = await readFile(path.join(root, "README.md"), "utf8");
  const example = /## A small app[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  t.truthy(example, "README has a TypeScript example under 'A small app'");
  await writeFile(path.join(project, "check.ts"), `${example}\nexport {};\n`);
  const readmeCheck = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: project }).then(
    () => "",
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
  t.is(readmeCheck, "", "README example type-checks against the published types");

  await writeFile(path.join(project, "check.ts"), `import { SvcApp } from "svc";\nnew SvcApp({ port: "not a number" });\n`);
  await t.throwsAsync(run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: project }));

  // The trap of a linked install: the project's own mongoose is a second copy (svc keeps its
  // own in its node_modules), so the user's models would never connect. The start fails at
  // once with the cause and the fix instead of hanging into a phase timeout.
  await run("npm", ["install", "mongoose@~9.12", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], { cwd: project });
  await writeFile(
    path.join(project, "two-copies.mjs"),
    `import mongoose from "mongoose";
import { SvcApp, modelRouter, Permissions } from "svc";
const Post = mongoose.model("Post", new mongoose.Schema({ title: String }, { strict: "throw" }));
await new SvcApp({ env: { NODE_ENV: "test" }, port: 0, handleSignals: false })
  .register(modelRouter("/posts", Post, { permissions: { list: [Permissions.IsAny] } }))
  .start();
`,
  );
  const twoCopies = await run(process.execPath, ["two-copies.mjs"], { cwd: project, env: { ...process.env, NODE_ENV: "test" } }).then(
    () => "started",
    (error: { stderr?: string }) => error.stderr ?? "",
  );
  t.regex(twoCopies, /DATABASE_SECOND_MONGOOSE|another copy of mongoose/);
  t.regex(twoCopies, /npm ls mongoose/);
});
