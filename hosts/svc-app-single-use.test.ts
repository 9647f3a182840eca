import test from "ava";
import { HTTP_ROUTER } from "../contracts/http.js";
import { hasErrorCode } from "../kernel/errors.js";
import { HostErrors, SvcApp } from "./svc-app.js";

// An SvcApp runs once: after stop(), build() and start() refuse instead of handing back stopped
// plugins or listening on a server nothing will close. Its own file (one process per file in
// ava), so counting this process's listening servers sees only these apps.

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function app(): SvcApp {
  return new SvcApp({ env: { NODE_ENV: "test" }, database: false, logger: silent, port: 0, handleSignals: false }).register({
    name: "ping",
    start(ctx) {
      ctx.resolve(HTTP_ROUTER).get("/ping", (_req, res) => res.json({ data: "pong" }));
    },
  });
}

// A closed server's handle is released in the event loop's close phase, after close() resolves.
async function listeningServers(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 10));
  return process.getActiveResourcesInfo().filter((resource) => resource === "TCPServerWrap").length;
}

test.serial("build, stop, then start or build throws HOST_STOPPED, and nothing is left listening", async (t) => {
  const svc = app();
  await svc.build();
  await svc.stop();
  const started = await t.throwsAsync(svc.start());
  t.true(hasErrorCode(started, HostErrors.STOPPED), String(started));
  t.regex(started!.message, /create a new SvcApp/);
  t.true(hasErrorCode(await t.throwsAsync(svc.build()), HostErrors.STOPPED));
  await svc.stop(); // resolves: a second stop has nothing left to close
  t.is(await listeningServers(), 0);
});

test.serial("start, stop, then start throws HOST_STOPPED instead of returning the stopped server", async (t) => {
  const svc = app();
  const running = await svc.start();
  t.is((await fetch(`${running.url}/ping`)).status, 200);
  await svc.stop();
  t.true(hasErrorCode(await t.throwsAsync(svc.start()), HostErrors.STOPPED));
  await t.throwsAsync(fetch(`${running.url}/ping`));
  await svc.stop();
  t.is(await listeningServers(), 0);
});

test.serial("stop while plugins are starting: the pending start() throws HOST_STOPPED and never listens", async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const svc = app().register({ name: "slow", start: () => gate });
  const starting = svc.start();
  const stopping = svc.stop();
  release();
  t.true(hasErrorCode(await t.throwsAsync(starting), HostErrors.STOPPED));
  await stopping;
  t.is(await listeningServers(), 0);
});

test.serial("a new SvcApp runs after the first one stopped", async (t) => {
  const first = app();
  await first.start();
  await first.stop();
  const second = app();
  const running = await second.start();
  t.is((await fetch(`${running.url}/ping`)).status, 200);
  await second.stop();
  t.is(await listeningServers(), 0);
});
