import test from "ava";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { tempDir } from "./support/temp-dir.js";

// swagger-ui-dist depends on @scarf/scarf, whose postinstall reports installs to scarf.sh.
// svc's package.json opts out (`scarfSettings.enabled: false`), which scarf honours for every
// install whose dependency chain passes through svc: a user's project and our own checkout.
// These tests put that to scarf's own decision code. They never run its reporter: they lay out
// node_modules as npm does, run the `npm ls` scarf runs, and hand the output to scarf's parser.

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const ours = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { name: string; version: string; scarfSettings?: object };
const swaggerDir = path.dirname(require.resolve("swagger-ui-dist/package.json"));
const scarfDir = path.dirname(createRequire(path.join(swaggerDir, "index.js")).resolve("@scarf/scarf/package.json"));

interface ScarfReport {
  processDependencyTreeOutput(
    resolve: (info: unknown) => void,
    reject: (error: Error) => void,
  ): (error: Error | null, stdout: string, stderr: string) => void;
}
const scarf = createRequire(scarfDir + path.sep)("./report.js") as ScarfReport;

function writePackage(dir: string, manifest: object): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "package.json"), JSON.stringify(manifest));
}

/** A project whose root is `rootManifest`, with swagger-ui-dist and scarf installed (hoisted, as npm does). */
function project(t: import("ava").ExecutionContext, rootManifest: object, svcManifest?: object): string {
  const dir = tempDir(t, "svc-scarf-");
  writePackage(dir, rootManifest);
  if (svcManifest) writePackage(path.join(dir, "node_modules", "svc"), svcManifest);
  writePackage(path.join(dir, "node_modules", "swagger-ui-dist"), JSON.parse(readFileSync(path.join(swaggerDir, "package.json"), "utf8")));
  writePackage(path.join(dir, "node_modules", "@scarf", "scarf"), JSON.parse(readFileSync(path.join(scarfDir, "package.json"), "utf8")));
  return dir;
}

/** What scarf would decide at install time in `dir`: "report", or why it stays silent. */
async function scarfDecision(dir: string): Promise<string> {
  const env = { ...process.env };
  for (const name of ["SCARF_ANALYTICS", "SCARF_NO_ANALYTICS", "DO_NOT_TRACK", "npm_config_global"]) delete env[name];
  const stdout = await run("npm", ["ls", "@scarf/scarf", "--json", "--long"], { cwd: dir, env }).then(
    (result) => result.stdout,
    (error: { stdout?: string }) => error.stdout ?? "",
  );
  return new Promise((resolve) => scarf.processDependencyTreeOutput(() => resolve("report"), (error) => resolve(error.message))(null, stdout, ""));
}

const svcManifest = (scarfSettings: object | undefined) => ({
  name: ours.name,
  version: ours.version,
  dependencies: { "swagger-ui-dist": "*" },
  ...(scarfSettings ? { scarfSettings } : {}),
});

test("svc's package.json opts out of scarf", (t) => {
  t.deepEqual(ours.scarfSettings, { enabled: false });
});

test("a user's project that installs svc does not report", async (t) => {
  const user = { name: "user-app", version: "1.0.0", dependencies: { [ours.name]: ours.version } };
  t.regex(await scarfDecision(project(t, user, svcManifest(ours.scarfSettings))), /disabled via a package\.json/);
  // The control: without svc's setting scarf would report, so the setting is what stops it.
  t.is(await scarfDecision(project(t, user, svcManifest(undefined))), "report");
});

test("installing svc's own dependencies does not report", async (t) => {
  t.regex(await scarfDecision(project(t, svcManifest(ours.scarfSettings))), /disabled via a package\.json/);
});
