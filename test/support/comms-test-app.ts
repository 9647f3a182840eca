// A started test app with the comms plugin and captured logs, for the comms plugin's and its
// provider adapters' tests.
import type { SvcApp } from "../../hosts/svc-app.js";
import { createTestApp } from "../../hosts/testing.js";
import { createSvcLogger } from "../../plugins/logging/create-logger.js";
import { LogCapture } from "../../plugins/logging/log-capture.js";
import { commsPlugin, type CommsAppOptions, type CommsPlugin } from "../../plugins/comms/index.js";

/** A started test app with the comms plugin; logs captured. */
export async function commsTestApp(
  t: { teardown: (fn: () => Promise<void> | void) => void },
  options: CommsAppOptions = {},
  env: Record<string, string> = {},
  configure?: (app: SvcApp) => void,
): Promise<{ app: SvcApp; comms: CommsPlugin; logs: LogCapture; http: import("express").Express }> {
  const logs = new LogCapture();
  const logger = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [logs] });
  const comms = commsPlugin(options);
  const app = (await createTestApp({ env, logger })).register(comms);
  configure?.(app);
  const http = await app.build();
  t.teardown(() => app.stop());
  return { app, comms, logs, http };
}
