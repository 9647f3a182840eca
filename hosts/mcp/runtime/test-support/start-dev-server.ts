import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), "dev-server-main.ts");
// Absolute: the child runs in a temp directory, where the bare name "tsx" resolves to nothing.
const TSX = import.meta.resolve("tsx");

/** A development server child process and what it announced. */
export interface DevServerProcess {
  readonly child: ChildProcess;
  readonly projectDir: string;
  stop(): Promise<void>;
}

/**
 * Starts `dev-server-main.ts` with the inspector on (`--inspect=0`) in `projectDir` (given a
 * package.json) and resolves once it announced itself.
 *
 * @example
 * const server = await startDevServer(tempDir(t, "svc-mcp-runtime-"));
 * t.teardown(() => server.stop());
 */
export async function startDevServer(projectDir: string): Promise<DevServerProcess> {
  writeFileSync(path.join(projectDir, "package.json"), JSON.stringify({ name: "runtime-fixture", version: "1.2.3", dependencies: { svc: "^0.1.0" } }));
  const child = spawn(process.execPath, ["--inspect=127.0.0.1:0", "--import", TSX, MAIN], {
    cwd: projectDir,
    env: { ...process.env, NODE_ENV: "development", SVC_DEV_SECRETS_FILE: path.join(projectDir, "secrets.json"), ADMIN_PASSWORD: "runtime-fixture-pw", PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    await once(child, "exit");
  };
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("announced ")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`the dev server exited (${code}) before announcing itself:\n${output}`)));
  });
  return { child, projectDir, stop };
}
