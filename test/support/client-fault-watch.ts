// Watches an app's log and error tracker, so a test can show that a refused request was treated
// as the client's fault: nothing logged above `warn`, nothing reported to the tracker.
import type { ExecutionContext } from "ava";
import { InMemoryErrorTracker } from "../../adapters/error-tracker/in-memory.js";
import { ERROR_TRACKER } from "../../contracts/error-tracker.js";
import { SvcApp, type RunningApp } from "../../hosts/svc-app.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import { createSvcLogger } from "../../plugins/logging/create-logger.js";
import { LogCapture } from "../../plugins/logging/log-capture.js";

/**
 * A captured logger and an in-memory error tracker for one app.
 *
 * @example
 * const watch = new ClientFaultWatch();
 * const app = watch.attach(await createTestApp({ logger: watch.logger }));
 * await request(http).get("/things/%zz").expect(400);
 * watch.assertNoServerFault(t);
 */
export class ClientFaultWatch {
  readonly capture = new LogCapture();
  readonly tracker = new InMemoryErrorTracker();
  readonly logger = createSvcLogger({ level: "debug", disableConsoleLogging: true, disableFileLogging: true, transports: [this.capture] });

  /** Makes the tracker the app's `ERROR_TRACKER` (before the app is built). */
  attach(app: SvcApp): SvcApp {
    return app.override(ERROR_TRACKER, { useValue: this.tracker });
  }

  /** No `error` log line and no tracker report so far. */
  assertNoServerFault(t: ExecutionContext): void {
    t.deepEqual(
      this.capture.lines.filter((line) => line.level === "error").map((line) => line.message),
      [],
      "a client's mistake is logged at most at warn",
    );
    t.deepEqual(
      this.tracker.exceptions.map((entry) => String(entry.error)),
      [],
      "a client's mistake never reaches the error tracker",
    );
  }
}

/**
 * A started database-less app on loopback with `plugins`, watched by a `ClientFaultWatch`, its
 * sockets on the app's port or on `socketPort`; stopped in the test's teardown.
 *
 * @example
 * const { running, watch } = await startWatchedApp(t, [routes]);
 */
export async function startWatchedApp(
  t: ExecutionContext,
  plugins: readonly SvcPlugin[],
  socketPort?: number,
): Promise<{ running: RunningApp; watch: ClientFaultWatch }> {
  const watch = new ClientFaultWatch();
  const app = watch.attach(
    new SvcApp({
      env: { NODE_ENV: "test" },
      database: false,
      logger: watch.logger,
      port: 0,
      host: "127.0.0.1",
      handleSignals: false,
      sockets: socketPort === undefined ? undefined : { port: socketPort },
    }),
  );
  for (const plugin of plugins) app.register(plugin);
  const running = await app.start();
  t.teardown(() => app.stop());
  return { running, watch };
}
