/**
 * Loopback HTTP load for benchmarks: keep-alive requests, a fixed number per measurement at a
 * fixed concurrency, so every run is bounded and stops by itself.
 *
 * @example
 * const target = { port, agent: new Agent({ keepAlive: true, maxSockets: 8 }), auth: "Bearer t" };
 * const rps = await throughput(1000, 8, () => send(target, "GET", "/todos"), 200);
 */
import { request as httpRequest, type Agent } from "node:http";

export interface Target {
  readonly port: number;
  readonly agent: Agent;
  /** The `Authorization` header value sent with every request. */
  readonly auth: string;
}

/** Sends one request and resolves with its status once the body is drained. */
export function send(target: Target, method: string, path: string, body?: string, extraHeaders: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: target.port,
        method,
        path,
        agent: target.agent,
        headers: { authorization: target.auth, ...(body ? { "content-type": "application/json", "content-length": Buffer.byteLength(body) } : {}), ...extraHeaders },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Runs `count` requests with `concurrency` in flight; returns requests per second. */
export async function throughput(
  count: number,
  concurrency: number,
  call: (index: number) => Promise<number>,
  expected: number,
): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (next < count) {
      const status = await call(next++);
      if (status !== expected) throw new Error(`benchmark request answered ${status}, expected ${expected}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return count / (Number(process.hrtime.bigint() - started) / 1e9);
}
