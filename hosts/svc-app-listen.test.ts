import test, { type ExecutionContext } from "ava";
import { createSvcLogger } from "../plugins/logging/create-logger.js";
import { LogCapture } from "../plugins/logging/log-capture.js";
import type { Environment } from "../kernel/environment.js";
import { hasErrorCode } from "../kernel/errors.js";
import { HostErrors, SvcApp, type SvcAppOptions } from "./svc-app.js";

async function listen(t: ExecutionContext, env: Environment, options: SvcAppOptions = {}) {
  const capture = new LogCapture();
  const logger = createSvcLogger({ level: "info", disableConsoleLogging: true, disableFileLogging: true, transports: [capture] });
  const app = new SvcApp({ env, database: false, logger, port: 0, handleSignals: false, ...options });
  t.teardown(() => app.stop());
  const running = await app.start();
  const bound = running.server.address();
  if (bound === null || typeof bound === "string") throw new Error("not listening on a TCP port");
  const line = capture.lines.find((entry) => entry.message.startsWith("svc listening on"));
  return { running, address: bound.address, line: line?.message };
}

test("outside production the server listens on loopback only", async (t) => {
  for (const NODE_ENV of ["development", "test"]) {
    const { running, address, line } = await listen(t, { NODE_ENV });
    t.is(address, "127.0.0.1", NODE_ENV);
    t.is(running.url, `http://127.0.0.1:${running.port}`);
    t.is(line, `svc listening on ${running.url} (this machine only; HOST=0.0.0.0 listens on every interface)`);
    t.is((await fetch(`${running.url}/openapi.json`)).status, 200);
  }
});

test("in production the server listens on every interface and says so", async (t) => {
  const { running, address, line } = await listen(t, { NODE_ENV: "production" });
  t.true(address === "::" || address === "0.0.0.0", address);
  const bound = address === "::" ? `http://[::]:${running.port}` : `http://0.0.0.0:${running.port}`;
  t.is(line, `svc listening on ${bound} (all interfaces; on this machine: http://127.0.0.1:${running.port})`);
  t.is(running.url, `http://127.0.0.1:${running.port}`, "a URL a local client can use, not the wildcard");
  t.is((await fetch(`${running.url}/openapi.json`)).status, 200);
});

test("HOST picks the interface in any environment, and the host option wins over HOST", async (t) => {
  const everywhere = await listen(t, { NODE_ENV: "development", HOST: "0.0.0.0" });
  t.is(everywhere.address, "0.0.0.0");
  t.is(everywhere.running.url, `http://127.0.0.1:${everywhere.running.port}`);
  const loopback = await listen(t, { NODE_ENV: "production", HOST: "127.0.0.1" });
  t.is(loopback.address, "127.0.0.1");
  const option = await listen(t, { NODE_ENV: "development", HOST: "0.0.0.0" }, { host: "127.0.0.1" });
  t.is(option.address, "127.0.0.1");
});

test("a host name is reported as the address it resolved to", async (t) => {
  const { running, address, line } = await listen(t, { NODE_ENV: "development" }, { host: "localhost" });
  t.true(address === "127.0.0.1" || address === "::1", address);
  t.is(running.url, address === "::1" ? `http://[::1]:${running.port}` : `http://127.0.0.1:${running.port}`);
  t.true(line?.startsWith(`svc listening on ${running.url}`));
});

test("a taken port is HOST_PORT_IN_USE saying what to do, and the app's plugins are stopped", async (t) => {
  const first = await listen(t, { NODE_ENV: "development" });
  const second = new SvcApp({ env: { NODE_ENV: "development" }, database: false, port: first.running.port, handleSignals: false, logger: createSvcLogger({ level: "error", disableConsoleLogging: true, disableFileLogging: true }) });
  const stopped: string[] = [];
  second.register({ name: "probe", stop: () => void stopped.push("probe") });
  const error = await t.throwsAsync(second.start());
  t.true(hasErrorCode(error, HostErrors.PORT_IN_USE), String(error));
  t.regex(error!.message, new RegExp(`port ${first.running.port}: another process is using that port \\(stop it, or choose another with PORT=<n>\\)`));
  t.deepEqual(stopped, ["probe"], "started plugins are stopped again");
});
