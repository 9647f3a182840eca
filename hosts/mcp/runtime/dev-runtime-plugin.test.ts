import test from "ava";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { SvcApp } from "../../../index.js";
import { tempDir } from "../../../test/support/temp-dir.js";
import { isLoopbackAddress } from "./dev-runtime-plugin.js";
import { DEV_SERVER_FILE, devRuntime, type DevServerAnnouncement } from "./index.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };

test("outside production it serves the debug routes and announces the server until it stops", async (t) => {
  const projectDir = tempDir(t, "svc-dev-runtime-");
  const dev = devRuntime({ projectDir });
  const app = new SvcApp({ env: { NODE_ENV: "development" }, database: false, logger: silent, handleSignals: false, port: 0 }).register(dev);
  const running = await app.start();
  t.teardown(() => app.stop());
  const file = await dev.announce(running);
  t.is(file, path.join(projectDir, DEV_SERVER_FILE));
  const announced = JSON.parse(readFileSync(file!, "utf8")) as DevServerAnnouncement;
  t.is(announced.pid, process.pid);
  t.is(announced.url, running.url);
  t.is(announced.database, undefined, "no database plugin, nothing to announce");

  const info = (await (await fetch(`${running.url}/__svc/dev/info`)).json()) as { data: { plugins: string[]; nodeEnv: string } };
  t.true(info.data.plugins.includes("dev-runtime"));
  t.is(info.data.nodeEnv, "development");
  const malformed = await fetch(`${running.url}/__svc/dev/client-state`, { method: "POST", headers: { "content-type": "application/json" }, body: "[1" });
  t.is(malformed.status, 400, "a broken body is the app's usual 400");

  await app.stop();
  t.false(existsSync(file!), "stopping removes the announcement");
});

test("in production it mounts nothing and announces nothing", async (t) => {
  const projectDir = tempDir(t, "svc-dev-runtime-");
  const dev = devRuntime({ projectDir });
  const app = new SvcApp({ env: { NODE_ENV: "production" }, database: false, logger: silent, handleSignals: false, port: 0 }).register(dev);
  const running = await app.start();
  t.teardown(() => app.stop());
  t.is(await dev.announce(running), undefined);
  t.false(existsSync(path.join(projectDir, DEV_SERVER_FILE)));
  t.is((await fetch(`${running.url}/__svc/dev/info`)).status, 404);
  t.is((await fetch(`${running.url}/__svc/dev/client-state`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ clientId: "a", state: 1 }) })).status, 404);
});

test("the debug routes answer loopback addresses only", (t) => {
  for (const address of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) t.true(isLoopbackAddress(address), address);
  for (const address of [undefined, "", "192.0.2.2", "10.0.0.1", "fd00::2", "::ffff:192.0.2.2", "127.0.0.1.evil", "::2"]) t.false(isLoopbackAddress(address), String(address));
});
