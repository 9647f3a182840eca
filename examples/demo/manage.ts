// The demo's commands, on the same app the server runs (without the first-start seeds):
//   npm run create-admin -- --email you@example.com            a generated password, printed once
//   echo "$PASSWORD" | npm run create-admin -- --email you@example.com --password-stdin
// A project of its own writes the same few lines (docs/auth.md, "The first admin").
import { SvcApp } from "../../index.js";
import { runCommand } from "../../hosts/commands/index.js";
import { demoAppOptions, withDemoPlugins } from "./app.js";
import { User } from "./user.js";

const app = withDemoPlugins(new SvcApp({ ...demoAppOptions(process.env), handleSignals: false }));
process.exitCode = await runCommand(app, process.argv.slice(2), { userModel: User });
