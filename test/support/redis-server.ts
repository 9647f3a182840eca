// Debian's redis-server, started by a test on a free port (no persistence), for the tests of what
// svc does with CACHE_URL. .ci/run installs the package; a machine without it fails these tests
// with the reason rather than skipping them.
import { spawn } from "node:child_process";
import { createServer } from "node:net";

export interface TestRedis {
  /** `redis://127.0.0.1:<port>`, for `CACHE_URL`. */
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM), resolved once it exited. Idempotent. */
  stop(): Promise<void>;
}

/** A port nothing listens on right now (the OS's pick). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Starts `redis-server` on a free loopback port (with `password`, requiring it: the URL then
 * carries it); resolves once it accepts connections.
 *
 * @example
 * const redis = await startTestRedis();
 * test.after.always(() => redis.stop());
 * const app = await createTestApp({ env: { CACHE_URL: redis.url } });
 */
export async function startTestRedis(options: { password?: string } = {}): Promise<TestRedis> {
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...(options.password ? ["--requirepass", options.password] : [])];
  const child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let output = "";
    child.once("error", (error) => reject(new Error(`redis-server did not start (is Debian's redis-server installed? .ci/run installs it): ${error.message}`)));
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`redis-server exited (${code}) before accepting connections:\n${output}`)));
  });
  return {
    url: options.password ? `redis://:${encodeURIComponent(options.password)}@127.0.0.1:${port}` : `redis://127.0.0.1:${port}`,
    port,
    stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
