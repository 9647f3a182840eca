// A child process for signals.test.ts: a full-stack app (the framework's default logger and
// logging plugin) with a slow route, stopped by a signal from the parent.
import { HTTP_ROUTER, SvcApp } from "../../../index.js";

let release!: () => void;
const gate = new Promise<void>((resolve) => (release = resolve));
const graceMs = Number(process.env.GRACE_MS ?? 10_000);

const app = new SvcApp({ env: { NODE_ENV: "test", LOG_LEVEL: "info" }, database: false, port: 0, shutdownTimeoutMs: graceMs }).register({
  name: "slow",
  start(ctx) {
    ctx.resolve(HTTP_ROUTER).get("/slow", async (_req, res) => {
      process.stdout.write("in-flight\n");
      await gate;
      res.json({ data: "finished" });
    });
  },
});
// FAILING_STOP: a plugin whose stop throws (the kernel logs it and stops the rest).
if (process.env.FAILING_STOP) {
  app.register({
    name: "leaky",
    stop() {
      throw new Error("the queue could not be flushed");
    },
  });
}
// SECOND_APP: another app in the same process, with nothing in flight, so it stops first.
if (process.env.SECOND_APP) await new SvcApp({ env: { NODE_ENV: "test", LOG_LEVEL: "info" }, database: false, port: 0 }).start();
const running = await app.start();
// Runs after the app's own handler (added by start()): the app is stopping by now.
process.once("SIGTERM", () => process.stdout.write("signalled\n"));
process.on("message", (message) => {
  if (message === "release") release();
});
process.stdout.write(`listening ${running.port}\n`);
