import test from "ava";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { acquireDbPathLock, LOCK_FILE_NAME } from "./dbpath-lock.js";
import { startEmbeddedMongo } from "./index.js";
import { tempDir } from "./test-support/temp-dir.js";

test("a second engine on the same dbPath fails with an error naming the path; stop releases it", async (t) => {
  const dir = tempDir(t, "svc-db-lock-");
  const first = await startEmbeddedMongo({ dbPath: dir });
  const error = await t.throwsAsync(startEmbeddedMongo({ dbPath: dir }));
  t.true(error.message.includes(path.resolve(dir)));
  // The refusal says where the running engine is, so a command can connect to it instead.
  t.true(error.message.includes(`connect to it instead of opening its files (DB_URI=${first.uri})`), error.message);
  t.is(readFileSync(path.join(dir, LOCK_FILE_NAME), "utf8").split("\n")[0], String(process.pid));
  await first.stop();
  t.false(existsSync(path.join(dir, LOCK_FILE_NAME)));
  const second = await startEmbeddedMongo({ dbPath: dir });
  await second.stop();
});

test("a lock left by a dead process is taken over", async (t) => {
  const dir = tempDir(t, "svc-db-stale-");
  // A pid that certainly existed and is now gone: a child that has exited.
  const child = spawn(process.execPath, ["-e", ""]);
  const pid = child.pid!;
  await new Promise((resolve) => child.once("exit", resolve));
  writeFileSync(path.join(dir, LOCK_FILE_NAME), `${pid}\n`);
  const lock = acquireDbPathLock(dir);
  t.is(readFileSync(lock.path, "utf8").trim(), String(process.pid));
  lock.release();
});
