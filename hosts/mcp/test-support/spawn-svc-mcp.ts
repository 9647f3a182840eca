import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * Starts the `svc-mcp` executable (from the source tree, through tsx) in `cwd` with `env`;
 * resolves to its endpoint once it prints it, or rejects with its output when it exits first.
 *
 * @example
 * const server = await spawnSvcMcp(t, dir, { PORT: "0", MCP_HOST: "127.0.0.1" });
 */
export function spawnSvcMcp(
  t: { teardown: (fn: () => void) => void },
  cwd: string,
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), path.join(root, "hosts", "svc-mcp.ts")], {
    cwd,
    env: { ...process.env, NODE_ENV: "test", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  t.teardown(() => void child.kill("SIGTERM"));
  let output = "";
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer): void => {
      output += chunk.toString();
      const url = /listening on (\S+)/.exec(output)?.[1];
      if (url) resolve({ url, child });
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("exit", (code) => reject(Object.assign(new Error(`svc-mcp exited with ${code}: ${output}`), { code, output })));
  });
}
