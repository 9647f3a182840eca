// A child process for svc-app-signals.test.ts: an app with one slow route, stopped by a signal.
import { HTTP_ROUTER } from "../../contracts/http.js";
import { SvcApp } from "../svc-app.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };
let release!: () => void;
const gate = new Promise<void>((resolve) => (release = resolve));

const app = new SvcApp({ env: { NODE_ENV: "test" }, database: false, logger: silent, port: 0 }).register({
  name: "slow",
  start(ctx) {
    ctx.resolve(HTTP_ROUTER).get("/slow", async (_req, res) => {
      process.stdout.write("in-flight\n");
      await gate;
      res.json({ data: "finished" });
    });
  },
  stop() {
    process.stdout.write("plugin stopped\n");
  },
});
const running = await app.start();
// The parent releases the slow request after it has sent the signal.
process.on("message", (message) => {
  if (message === "release") release();
});
process.stdout.write(`listening ${running.port}\n`);
