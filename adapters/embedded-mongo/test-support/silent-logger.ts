import type { EngineLogger } from "../engine-logger.js";

/**
 * An engine logger that drops everything: tests provoke protocol errors and TTL sweeps on
 * purpose, and their output should not drown the test report.
 *
 * @example
 * const running = await startEmbeddedMongo({ logger: silentLogger });
 */
export const silentLogger: EngineLogger = { error() {}, warn() {}, info() {}, debug() {} };
