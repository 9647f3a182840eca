import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * Runs one of the package's executables from source (`hosts/<name>.ts` through tsx) with `args`
 * until it exits, for tests of refusals and `--help`. One that starts instead of exiting is
 * killed after 60 s (its exit code is then null).
 *
 * @example
 * const { code, stderr } = await runBinToExit("svc-db", ["--port", "1e3"]);
 */
export async function runBinToExit(
  name: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), path.join(root, "hosts", `${name}.ts`), ...args], {
    env: { ...process.env, NODE_ENV: "test", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  // "close", not "exit": a child's output can still be in its pipes when it exits.
  const [code] = (await once(child, "close")) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}
