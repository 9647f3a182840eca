// A development server like `npm start`'s, run by the runtime tools' tests as a child process in
// a temp project directory: the demo's plugins on the embedded engine persisted under
// `.svc/data`, log files under `logs/`, and devRuntime() announcing it in `.svc/dev-server.json`.
import { logger, setupLogging, SvcApp } from "../../../../index.js";
import { demoAppOptions, withDemoPlugins } from "../../../../examples/demo/app.js";
import { devRuntime } from "../index.js";

setupLogging({ disableConsoleLogging: true });
const dev = devRuntime();
const app = withDemoPlugins(new SvcApp({ ...demoAppOptions(process.env), port: 0 })).register(dev);
const running = await app.start();
// Something for last_error to find: a failure logged the way the app logs its own.
logger.error(new Error("fixture: the payment provider refused the card"));
const file = await dev.announce(running);
process.stdout.write(`announced ${file}\n`);
