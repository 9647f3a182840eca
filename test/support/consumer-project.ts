import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { rmSync } from "node:fs";
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { sharedPack, type PackedPackage } from "./pack-cache.js";

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The repository's TypeScript compiler, used to type-check a consumer project as its user would. */
export const tscCli = path.join(path.dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");

/** Runs a command in `cwd`; rejects with its output on a non-zero exit. */
export async function runIn(cwd: string, command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  try {
    const { stdout } = await run(command, [...args], { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${failed.stdout ?? ""}\n${failed.stderr ?? failed.message}`);
  }
}

let packed: Promise<PackedPackage> | undefined;

/**
 * svc as `npm publish` would ship it: built into a staging folder (never the repository's own
 * `dist/`, which another test process may be building at the same moment) and packed into a
 * tarball. Once per content of the package's sources and docs: the test processes of a run share
 * one build (see pack-cache.ts).
 *
 * @example
 * const { tarball } = await packSvc();
 */
export function packSvc(): Promise<PackedPackage> {
  packed ??= sharedPack(root, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "svc-pack-"));
    // Exit handlers run synchronously: an async rm would never finish.
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    const stage = path.join(dir, "svc");
    await mkdir(stage);
    await Promise.all(["package.json", "README.md", "docs"].map((entry) => cp(path.join(root, entry), path.join(stage, entry), { recursive: true })));
    await runIn(root, process.execPath, [tscCli, "-p", "tsconfig.build.json", "--outDir", path.join(stage, "dist")]);
    // The admin web UI ships as a bundle, as `npm run build` makes it.
    await runIn(root, process.execPath, ["--import=tsx", "plugins/admin/admin-ui-build.ts", path.join(stage, "dist", "plugins", "admin", "ui-bundle")]);
    const [result] = JSON.parse(await runIn(stage, "npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir, "--loglevel=error"])) as [
      { filename: string; files: { path: string }[] },
    ];
    return { tarball: path.join(dir, result.filename), files: result.files.map((file) => file.path) };
  });
  return packed;
}

export interface ConsumerProject {
  readonly dir: string;
  /** Writes a file of the project (folders are created). */
  write(file: string, content: string): Promise<void>;
  /** Type-checks with the given tsconfig file; resolves to tsc's output ("" when clean). */
  typecheck(tsconfig?: string): Promise<string>;
}

/** The compiler options of a careful user: strict, and the library types checked too. */
export const USER_COMPILER_OPTIONS = {
  module: "NodeNext",
  moduleResolution: "NodeNext",
  target: "ES2022",
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  types: ["node"],
};

/**
 * A fresh project in a temp folder that installs the packed svc tarball (no links, so it gets
 * exactly one mongoose: svc's peer) plus the packages a user would add. Removed in teardown.
 *
 * @example
 * const project = await consumerProject(t, ["@types/node@^20", "tsx"]);
 */
export async function consumerProject(
  t: { teardown: (fn: () => Promise<void>) => void },
  packages: readonly string[] = [],
): Promise<ConsumerProject> {
  const { tarball } = await packSvc();
  const dir = await mkdtemp(path.join(tmpdir(), "svc-user-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(path.join(dir, "package.json"), JSON.stringify({ name: "user-app", version: "1.0.0", type: "module", private: true }));
  const quiet = ["--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"];
  // One install, as `npm install svc mongoose @types/node ...` would be.
  await runIn(dir, "npm", ["install", tarball, ...packages, ...quiet]);
  return {
    dir,
    async write(file, content) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), content);
    },
    typecheck: (tsconfig = "tsconfig.json") =>
      run(process.execPath, [tscCli, "-p", tsconfig], { cwd: dir, maxBuffer: 64 * 1024 * 1024 }).then(
        () => "",
        (error: { stdout?: string; message: string }) => error.stdout || error.message,
      ),
  };
}

/** Starts `src/main.ts` with tsx as a user would and resolves with the URL it prints. */
export async function startUserApp(t: { teardown: (fn: () => Promise<void>) => void }, dir: string): Promise<string> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: dir,
    env: { ...process.env, NODE_ENV: "development", PORT: "0", DB_URI: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  t.teardown(async () => {
    if (child.exitCode !== null) return;
    child.kill("SIGTERM");
    await once(child, "exit");
  });
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /svc listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url) resolve(url);
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.once("exit", (code) => reject(new Error(`the app exited (${code}) before listening:\n${output}`)));
  });
}
