// Watches an app's log and error tracker, so a test can show that a refused request was treated
// as the client's fault: nothing logged above `warn`, nothing reported to the tracker.
import type { ExecutionContext } from "ava";
import { InMemoryErrorTracker } from "../../adapters/error-tracker/in-memory.js";
import { ERROR_TRACKER } from "../../contracts/error-tracker.js";
import type { SvcApp } from "../../hosts/svc-app.js";
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
