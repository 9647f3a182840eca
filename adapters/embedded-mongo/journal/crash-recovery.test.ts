import test from "ava";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { LOCK_FILE_NAME } from "../dbpath-lock.js";
import { startEmbeddedMongo } from "../start-embedded-mongo.js";
import { silentLogger } from "../test-support/silent-logger.js";
import { tempDir } from "../test-support/temp-dir.js";

const CHILD = fileURLToPath(new URL("../test-support/crash-writer-child.ts", import.meta.url));

/** Acknowledged inserts to see before the kill (enough to be mid-stream, several fsync rounds). */
const INSERTS_BEFORE_KILL = 600;
const COUNTER_BEFORE_KILL = 100;

test("kill -9 mid-stream: every acknowledged write is there after restart", async (t) => {
  const dbPath = tempDir(t, "svc-crash-");
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, dbPath], { stdio: ["ignore", "pipe", "pipe"] });
  const inserted: string[] = [];
  let counter = 0;
  let stderr = "";
  let partial = "";
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
  const drained = new Promise((resolve) => child.stdout.once("close", resolve));
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const enough = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the child wrote too little in 60 s: ${inserted.length} inserts, counter ${counter}\n${stderr}`)), 60_000);
    child.stdout.on("data", (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split("\n");
      partial = lines.pop()!; // an unterminated line may be cut by the kill: not counted
      for (const line of lines) {
        const [kind, value] = line.split(" ");
        if (kind === "insert") inserted.push(value!);
        if (kind === "counter") counter = Math.max(counter, Number(value));
      }
      if (inserted.length >= INSERTS_BEFORE_KILL && counter >= COUNTER_BEFORE_KILL) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(() => reject(new Error(`the child exited early\n${stderr}`)));
  });
  try {
    await enough;
  } finally {
    child.kill("SIGKILL");
  }
  t.is(await exited, "SIGKILL");
  // Lines the child printed but we had not read yet are acknowledged too: read them all.
  await drained;

  const restarted = await startEmbeddedMongo({ dbPath, logger: silentLogger });
  t.teardown(() => restarted.stop());
  t.is(readFileSync(path.join(dbPath, LOCK_FILE_NAME), "utf8").split("\n")[0], String(process.pid), "the dead child's lock was taken over");
  const docs = restarted.engine.storage.collection("crash", "docs")!;
  const missing = inserted.filter((id) => !docs.findById(id));
  t.deepEqual(missing, [], `${missing.length} of ${inserted.length} acknowledged inserts are missing`);
  const stored = restarted.engine.storage.collection("crash", "counters")!.findById("c")!.doc["n"] as { valueOf(): number };
  t.true(Number(stored.valueOf()) >= counter, `counter ${Number(stored.valueOf())} ≥ acknowledged ${counter}`);
  t.log(`${inserted.length} acknowledged inserts and counter ${counter} survived; recovery: ${JSON.stringify(restarted.journal!.recovery)}`);
});
