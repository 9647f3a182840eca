import test from "ava";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { hasErrorCode, HostErrors, SOCKET_SERVER, SvcApp } from "../../index.js";

// A start that fails after the plugins started must stop them again: a main whose start()
// rejected has nothing to call stop() on, and whatever they hold would keep the process alive.

const silent = { debug() {}, info() {}, warn() {}, error() {} };

async function listeningServers(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 10));
  return process.getActiveResourcesInfo().filter((resource) => resource === "TCPServerWrap").length;
}

test.serial("the socket port is taken: start() rejects, and the started plugins are stopped and nothing listens", async (t) => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen({ port: 0, host: "127.0.0.1" }, resolve));
  t.teardown(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  const taken = (blocker.address() as AddressInfo).port;
  const baseline = await listeningServers();

  const stopped: string[] = [];
  const app = new SvcApp({ env: { NODE_ENV: "test" }, database: false, logger: silent, port: 0, host: "127.0.0.1", handleSignals: false, sockets: { port: taken } }).register({
    name: "chat",
    start(ctx) {
      ctx.resolve(SOCKET_SERVER).on("connection", () => undefined);
    },
    stop() {
      stopped.push("chat");
    },
  });
  t.teardown(() => app.stop());
  const error = await t.throwsAsync(app.start());
  t.true(hasErrorCode(error, HostErrors.PORT_IN_USE), String(error));
  t.regex(error!.message, new RegExp(`port ${taken} \\(sockets\\)`));
  t.deepEqual(stopped, ["chat"], "the plugins that started are stopped again");
  t.is(app.kernel.state, "stopped");
  t.is(await listeningServers(), baseline);
  t.is(process.listenerCount("SIGTERM"), 0);
});
