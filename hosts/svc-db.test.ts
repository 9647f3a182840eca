import test from "ava";
import { spawn } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { MongoClient } from "mongodb";
import { createEmbeddedConnector } from "../adapters/database/embedded.js";
import { startEmbeddedMongo } from "../adapters/embedded-mongo/index.js";
import { tempDir } from "../test/support/temp-dir.js";
import { runBinToExit } from "../test/support/run-bin.js";
import { runsOnTheEmbeddedEngineOnly } from "../test/support/engine-only.js";

runsOnTheEmbeddedEngineOnly(import.meta.url, "it tests svc-db, the embedded engine's own server");

/** Starts `svc-db` with `args`; resolves with the process, its URI and the listening line. */
async function startSvcDb(args: string[]): Promise<{ child: ChildProcessWithoutNullStreams; uri: string; line: string }> {
  const child = spawn(process.execPath, ["--import=tsx", "hosts/svc-db.ts", ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  const { uri, line } = await new Promise<{ uri: string; line: string }>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^.*listening on (mongodb:\/\/\S+).*$/m.exec(output);
      if (match) resolve({ uri: match[1]!, line: match[0] });
    });
    child.once("exit", (code) => reject(new Error(`svc-db exited with ${code}: ${output}`)));
  });
  return { child, uri, line };
}

test("svc-db serves the wire protocol on the given port and stops on SIGTERM", async (t) => {
  const child = spawn(process.execPath, ["--import=tsx", "hosts/svc-db.ts", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
  t.teardown(() => child.kill("SIGKILL"));
  let output = "";
  const uri = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (mongodb:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`svc-db exited with ${code}: ${output}`)));
  });
  const client = await new MongoClient(uri).connect();
  try {
    await client.db("cli").collection("c").insertOne({ a: 1 });
    t.is(await client.db("cli").collection("c").countDocuments(), 1);
  } finally {
    await client.close();
  }
  child.kill("SIGTERM");
  const [code] = await once(child, "exit");
  t.is(code, 0);
});

test("svc-db rejects a bad port with its usage", async (t) => {
  const child = spawn(process.execPath, ["--import=tsx", "hosts/svc-db.ts", "--port", "nope"], { stdio: ["ignore", "pipe", "pipe"] });
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  // "close", not "exit": the message can still be in the pipe when the process exits.
  const [code] = await once(child, "close");
  t.is(code, 1);
  t.regex(errors, /invalid --port/);
  t.regex(errors, /usage: svc-db/);
});

/** Runs `svc-db` with `args` to its exit. */
async function runSvcDbToExit(args: string[]): Promise<{ code: number | null; errors: string }> {
  const { code, stderr } = await runBinToExit("svc-db", args);
  return { code, errors: stderr };
}

test("svc-db accepts only a decimal --port from 0 to 65535 (-1 gets that message too) and a decimal --journalCommitInterval, and has no --host option", async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [["--port", "1e3"], /^svc-db: invalid --port "1e3" \(a decimal integer from 0 to 65535\)$/m],
    [["--port", "0x10"], /^svc-db: invalid --port "0x10"/m],
    [["--port="], /^svc-db: invalid --port ""/m],
    [["--port", "-1"], /^svc-db: invalid --port "-1"/m],
    [["--port", "65536"], /^svc-db: invalid --port "65536"/m],
    [["--host", "127.0.0.1", "--port", "0"], /^svc-db: Unknown option '--host'/m],
    [["--dbpath", "--port", "0"], /^svc-db: Option '--dbpath' argument is ambiguous\. .*'--dbpath=-XYZ'\.\nusage: svc-db/m],
    [["--journalCommitInterval", "1e3", "--port", "0"], /^svc-db: invalid --journalCommitInterval "1e3" \(a decimal number of milliseconds above 0\)$/m],
    [["--journalCommitInterval", "0", "--port", "0"], /^svc-db: invalid --journalCommitInterval "0"/m],
  ];
  const results = await Promise.all(cases.map(([args]) => runSvcDbToExit(args)));
  for (const [index, [args, message]] of cases.entries()) {
    t.is(results[index]!.code, 1, args.join(" "));
    t.regex(results[index]!.errors, message, args.join(" "));
    t.regex(results[index]!.errors, /usage: svc-db/, args.join(" "));
  }
});

test("svc-db reports a port in use or an address it cannot bind in one line, without a stack trace", async (t) => {
  const quiet = () => {};
  const taken = await startEmbeddedMongo({ logger: { error: quiet, warn: quiet, info: quiet, debug: quiet } });
  t.teardown(() => taken.stop());
  const [inUse, badAddress] = await Promise.all([
    runSvcDbToExit(["--port", String(taken.port)]),
    runSvcDbToExit(["--port", "0", "--bind_ip", "192.0.2.1"]),
  ]);
  t.is(inUse.code, 1);
  t.is(inUse.errors, `svc-db: listen EADDRINUSE: address already in use 127.0.0.1:${taken.port}\n`);
  t.is(badAddress.code, 1);
  t.regex(badAddress.errors, /^svc-db: listen EADDRNOTAVAIL: address not available 192\.0\.2\.1\n$/);
});

test("svc-db --dbpath keeps the data across a SIGTERM restart", async (t) => {
  const dbPath = tempDir(t, "svc-db-cli-");
  const first = await startSvcDb(["--port", "0", "--dbpath", dbPath, "--journal-fsync", "always"]);
  t.teardown(() => first.child.kill("SIGKILL"));
  t.regex(first.line, /journal fsync always/);
  const client = await new MongoClient(first.uri).connect();
  try {
    await client.db("cli").collection("kept").insertMany([{ _id: 1 as never }, { _id: 2 as never }]);
  } finally {
    await client.close();
  }
  first.child.kill("SIGTERM");
  t.is((await once(first.child, "exit"))[0], 0);

  const second = await startSvcDb(["--port", "0", "--dbpath", dbPath]);
  t.teardown(() => second.child.kill("SIGKILL"));
  t.regex(second.line, /recovered 2 documents from the snapshot/);
  const again = await new MongoClient(second.uri).connect();
  try {
    t.is(await again.db("cli").collection("kept").countDocuments(), 2);
  } finally {
    await again.close();
  }
  second.child.kill("SIGTERM");
  t.is((await once(second.child, "exit"))[0], 0);
});

test("svc-db rejects an unknown --journal-fsync mode", async (t) => {
  const child = spawn(process.execPath, ["--import=tsx", "hosts/svc-db.ts", "--port", "0", "--journal-fsync", "sometimes"], { stdio: ["ignore", "pipe", "pipe"] });
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  // "close", not "exit": the message can still be in the pipe when the process exits.
  const [code] = await once(child, "close");
  t.is(code, 1);
  t.regex(errors, /invalid --journal-fsync/);
});

test("svc-db reports a corrupt data directory with its error code, without the usage text", async (t) => {
  const dbPath = tempDir(t, "svc-db-corrupt-");
  const quiet = () => {};
  const engine = await startEmbeddedMongo({ dbPath, logger: { error: quiet, warn: quiet, info: quiet, debug: quiet } });
  await engine.engine.runCommand("cli", { insert: "c", documents: Array.from({ length: 50 }, (_, i) => ({ _id: i })) });
  await engine.stop(); // leaves one snapshot
  const snapshot = path.join(dbPath, readdirSync(dbPath).find((name) => name.endsWith(".svcdb"))!);
  const bytes = readFileSync(snapshot);
  bytes[Math.floor(bytes.length / 2)]! ^= 0x40;
  writeFileSync(snapshot, bytes);

  const child = spawn(process.execPath, ["--import=tsx", "hosts/svc-db.ts", "--port", "0", "--dbpath", dbPath], { stdio: ["ignore", "pipe", "pipe"] });
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  // "close", not "exit": the message can still be in the pipe when the process exits.
  const [code] = await once(child, "close");
  t.is(code, 1);
  t.regex(errors, /^svc-db: SVC_DB_JOURNAL_CORRUPT: .*\.svcdb/m);
  t.notRegex(errors, /usage: svc-db/);
});

test("an app whose data directory another process's engine holds connects to that engine (a command beside npm start)", async (t) => {
  const dir = tempDir(t, "svc-db-joined-");
  const { child, uri } = await startSvcDb(["--dbpath", dir, "--port", "0"]);
  t.teardown(() => child.kill("SIGKILL"));
  const opened = await createEmbeddedConnector({ dbPath: dir, dbName: "joined" }).open();
  t.teardown(() => opened.close());
  t.regex(opened.displayUri, new RegExp(`run by process ${child.pid}`));
  await opened.connection.db!.collection("notes").insertOne({ text: "written through the other process's engine" });
  const client = await MongoClient.connect(uri);
  t.teardown(() => client.close());
  t.is((await client.db("joined").collection("notes").findOne({}))?.text, "written through the other process's engine");
});
