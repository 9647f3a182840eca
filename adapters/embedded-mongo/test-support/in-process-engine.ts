import type { Document } from "bson";
import { createEngine } from "../engine.js";
import type { Engine } from "../engine.js";
import type { EngineOptions } from "../engine-options.js";
import { runPlain } from "./session-test-client.js";
import { silentLogger } from "./silent-logger.js";

/**
 * A fresh in-memory engine (no wire server) that logs nothing and is closed when the test ends.
 *
 * @example
 * const engine = engineFor(t, { oplogCapacity: 10 });
 */
export function engineFor(t: { teardown(fn: () => void): void }, options: EngineOptions = {}): Engine {
  const engine = createEngine({ logger: silentLogger, ...options });
  t.teardown(() => engine.close());
  return engine;
}

/**
 * Runs a command that must succeed (throws with the reply otherwise); the reply comes back with JS
 * numbers, as the driver sees it.
 *
 * @example
 * const reply = await runOk(engine, "app", { find: "c" });
 */
export async function runOk(engine: Engine, db: string, command: Document): Promise<Document> {
  const reply = await runPlain(engine, db, command);
  if (reply["ok"] !== 1) throw new Error(`${Object.keys(command)[0]} failed: ${JSON.stringify(reply)}`);
  return reply;
}
