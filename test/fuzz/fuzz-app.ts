// The fuzz harness: builds an app, reads the operations its /openapi.json documents, and attacks
// each with property-based hostile requests (fast-check) as anonymous, two users, an admin and
// forged credentials. Every answer must be a non-5xx in the one error shape with no internals;
// a refused request must write nothing; the server must still answer after each batch.
// docs/contributing.md ("Fuzzing") says how to run it, replay a seed, and cover a new plugin.
import { appendFileSync } from "node:fs";
import type { ExecutionContext } from "ava";
import { AcceptedBodies } from "./accepted-bodies.js";
import fc from "fast-check";
import mongoose from "mongoose";
import type { OpenAPIObject } from "openapi3-ts/oas31";
import { AppAccountsErrors, createUser, loginAs, testAuthEnvironment } from "../../hosts/testing.js";
import { hasErrorCode, type SvcApp, type SvcAppOptions } from "../../index.js";
import { capturedLog, type CapturedLog } from "./captured-log.js";
import { changedCollections, snapshotDatabase, type DatabaseSnapshot } from "./database-snapshot.js";
import { describeRequest, preview, type FuzzRequest } from "./fuzz-request.js";
import type { Actor, ActorName } from "./hostile-credentials.js";
import { readOperations, type FuzzOperation } from "./openapi-operations.js";
import { sendRaw, type RawResponse } from "./raw-http-client.js";
import { collectionOf, RecordIds } from "./record-ids.js";
import { buildRequest, requestPlans, sweepRequestPlans, type BuildContext, type RequestPlan } from "./request-plans.js";
import { responseProblem } from "./response-checks.js";
import { plausibleValue } from "./schema-values.js";

/** The seed when `FUZZ_SEED` is unset: fixed, so CI runs the same requests every time. */
export const DEFAULT_SEED = 20_240_612;
/** Random batches per operation when `FUZZ_RUNS` is unset (the sweep comes on top). */
export const DEFAULT_RUNS = 15;
/** Methods whose refusal must leave the database as it was. */
const WRITE_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** Property runs allowed for shrinking a failure, so a failing CI run still ends in bounded time. */
const SHRINK_RUNS = 150;

export interface FuzzAppOptions {
  /**
   * Builds the app to attack from the options the harness needs: its logger (so a failure can
   * quote the server's log) and a loopback address on a free port. Register the app's plugins
   * here, exactly as the app does.
   */
  build(options: SvcAppOptions): Promise<SvcApp>;
  /** Default `FUZZ_SEED`, else `DEFAULT_SEED`. */
  seed?: number;
  /** Random batches per operation; default `FUZZ_RUNS`, else `DEFAULT_RUNS`. */
  runs?: number;
  /** Requests per batch (one health check after each). Default 4. */
  batchSize?: number;
  /** Only the operation with this name (`POST /todos`); default `FUZZ_OPERATION`. */
  only?: string;
  /**
   * Which of the documented operations this run attacks (default: all). Split a large app into
   * serial tests by path so each finishes well within ava's timeout.
   */
  include?: (operation: string) => boolean;
  /** With `include`: an app with no matching operation is a run of nothing rather than an error. */
  allowEmpty?: boolean;
  /** fast-check's counterexample path, to replay one failure; default `FUZZ_PATH`. */
  path?: string;
  /** The key the app signs access tokens with, for expired and re-signed tokens. Default: `svc/testing`'s. */
  tokenSecret?: string;
  /** The app's JSON body limit in bytes (default 1 MB, the framework's): sizes are chosen around it. */
  bodyLimit?: number;
  /** A `$`-prefixed body key must be refused (docs/rest.md). Default true; false for apps whose own routes strip them. */
  refuseOperatorKeys?: boolean;
  /**
   * Bodies the app accepts, by operation (`{"POST /feature-flags/flags": [{...}]}`): bases for
   * mutations that get past the app's own rules (a schema cannot say that weights sum to 100).
   * Accepted bodies found while fuzzing join them.
   */
  seedBodies?: Readonly<Record<string, readonly unknown[]>>;
  /** Collections an app writes to on purpose when it refuses (an audit log): left out of the write check. */
  ignoreCollections?: readonly string[];
}

/** What a passing run did. */
export interface FuzzSummary {
  readonly seed: number;
  readonly runs: number;
  readonly operations: readonly string[];
  readonly requests: number;
  /** Answers by status, e.g. `{ "400": 812, "201": 40 }`. */
  readonly statuses: Readonly<Record<string, number>>;
}

/** A property failure carrying the whole story of the request that broke the contract. */
class FuzzFailure extends Error {
  override name = "FuzzFailure";
}

/**
 * Attacks every documented operation of the app `build` makes; resolves with a summary, or
 * rejects with a message naming the seed, each failing operation and its minimal request.
 *
 * @example
 * test("the demo survives hostile input", async (t) => {
 *   await fuzzApp(t, { build: async (options) => withDemoPlugins(await createTestApp(options)) });
 *   t.pass();
 * });
 */
export async function fuzzApp(t: ExecutionContext, options: FuzzAppOptions): Promise<FuzzSummary> {
  const seed = options.seed ?? integerFromEnvironment("FUZZ_SEED") ?? DEFAULT_SEED;
  const runs = options.runs ?? integerFromEnvironment("FUZZ_RUNS") ?? DEFAULT_RUNS;
  const batchSize = options.batchSize ?? 4;
  const only = options.only ?? process.env.FUZZ_OPERATION;
  const replayPath = (options.path ?? process.env.FUZZ_PATH) || undefined;
  // A counterexample path indexes one operation's runs: it means nothing for the others.
  if (replayPath && !only) throw new Error("FUZZ_PATH replays one operation's counterexample: set FUZZ_OPERATION too");
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;
  const ignore = new Set(options.ignoreCollections ?? []);
  // FUZZ_TRACE=<file> lists every request sent and its status: to see what a seed covers.
  const traceFile = process.env.FUZZ_TRACE;
  t.log(`fuzz seed ${seed}, ${runs} random batches of up to ${batchSize} requests per operation`);

  const log = capturedLog();
  const app = await options.build({ logger: log, port: 0, host: "127.0.0.1", handleSignals: false });
  t.teardown(() => app.stop());
  const { url: origin } = await app.start();

  const answer = await sendRaw(origin, { method: "GET", path: "/openapi.json", headers: {} });
  if (answer.status !== 200) throw new Error(`GET /openapi.json answered ${answer.status}: the harness reads the operations from it`);
  const allOperations = readOperations(JSON.parse(answer.body.toString("utf8")) as OpenAPIObject);
  const operations = allOperations.filter((operation) => (!only || operation.name === only) && (options.include?.(operation.name) ?? true));
  if (operations.length === 0 && options.allowEmpty) return { seed, runs, operations: [], requests: 0, statuses: {} };
  if (operations.length === 0) throw new Error(only ? `No operation named "${only}"; the app documents: ${allOperations.map((operation) => operation.name).join(", ")}` : "The app documents no operation");

  const actors = await signInActors(app);
  const context: BuildContext = {
    actors,
    tokenSecret: options.tokenSecret ?? testAuthEnvironment().TOKEN_SECRET!,
    ids: new RecordIds(),
    accepted: new AcceptedBodies(),
    bodyLimit,
    refuseOperatorKeys: options.refuseOperatorKeys ?? true,
    documentedMethods: documentedMethods(allOperations),
  };
  for (const [name, bodies] of Object.entries(options.seedBodies ?? {})) {
    const operation = allOperations.find((candidate) => candidate.name === name);
    if (!operation) throw new Error(`seedBodies names "${name}", which the app does not document`);
    for (const body of bodies) context.accepted.add(collectionOf(operation.path), body);
  }
  await createRecords(origin, allOperations, context, seed);

  const statuses: Record<string, number> = {};
  let requests = 0;
  // The database as of the last write request; undefined once something else may have written
  // since (a read may write too, legitimately: a last-seen time), so the next write re-reads it.
  let snapshot: DatabaseSnapshot | undefined;

  /** Sends one planned request and checks its answer and the database; throws a FuzzFailure. */
  const exchange = async (operation: FuzzOperation, plan: RequestPlan, earlier: FuzzRequest[]): Promise<void> => {
    const request = await buildRequest(operation, plan, context);
    const earlierText = earlier.length > 0 ? `\n\nSent before it in the same batch:\n${earlier.map((sent) => `  ${summarize(sent)}`).join("\n")}` : "";
    earlier.push(request);
    // Only writes are checked for writing: snapshots cost a database round trip each.
    const writes = WRITE_METHODS.has(request.method);
    const before = writes ? (snapshot ?? (await snapshotDatabase(mongoose.connection))) : undefined;
    snapshot = undefined;
    let response: RawResponse;
    try {
      response = await sendRaw(origin, request);
    } catch (error) {
      throw new FuzzFailure(`The server did not answer (${(error as Error).message}).\n\nRequest:\n${describeRequest(request)}${earlierText}`);
    }
    requests += 1;
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    if (traceFile) appendFileSync(traceFile, `${response.status} ${summarize(request)}\n`);
    let written: string[] = [];
    if (before) {
      snapshot = await snapshotDatabase(mongoose.connection);
      if (response.status >= 400) written = changedCollections(before, snapshot, ignore);
    }
    const requestId = typeof response.headers["x-request-id"] === "string" ? response.headers["x-request-id"] : undefined;
    const problem =
      responseProblem(request, response) ??
      (written.length > 0 ? `refused with ${response.status}, yet wrote to ${written.join(", ")}` : undefined) ??
      // docs/errors.md: 4xx are the client's doing; logged as errors, they would flood the error log.
      (response.status < 500 && log.hasErrorFor(requestId) ? `answered ${response.status}, yet logged an error` : undefined);
    if (problem) throw new FuzzFailure(failureStory(problem, request, response, log) + earlierText);
    if (response.status >= 200 && response.status < 300) {
      const owner = plan.credential.kind === "actor" ? plan.credential.actor : plan.credential.kind === "anonymous" ? "anonymous" : undefined;
      if (owner) context.ids.harvest(collectionOf(operation.path), owner, parseJson(response.body));
      const plainJson = plan.body && !plan.method && plan.body.envelope.encoding === "none" && !plan.body.envelope.malformed;
      if (operation.body && plainJson && request.body) context.accepted.add(collectionOf(operation.path), parseJson(request.body));
    }
  };

  const failures: string[] = [];
  for (const operation of operations) {
    const accepted = context.accepted.of(collectionOf(operation.path));
    const sweep = sweepRequestPlans(operation, seed, { hasActors: actors.size > 0, accepted: accepted[0] });
    const examples: Array<[RequestPlan[]]> = [];
    for (let index = 0; index < sweep.length; index += batchSize) examples.push([sweep.slice(index, index + batchSize)]);
    let failedOnce = false;
    let shrinkRuns = 0;
    const property = fc.asyncProperty(fc.array(requestPlans(operation, { hasActors: actors.size > 0, bodyLimit, hasAccepted: accepted.length > 0 }), { minLength: 1, maxLength: batchSize }), async (batch) => {
      // Past the shrink budget every candidate "passes", which ends shrinking at the smallest failure found so far.
      if (failedOnce && ++shrinkRuns > SHRINK_RUNS) return;
      try {
        const sent: FuzzRequest[] = [];
        for (const plan of batch) await exchange(operation, plan, sent);
        await checkStillAnswering(origin, sent);
      } catch (error) {
        failedOnce = true;
        throw error;
      }
    });
    const details = await fc.check(property, { seed, numRuns: runs + examples.length, examples, path: replayPath });
    if (details.failed) failures.push(failureReport(operation, details, { seed, runs }));
  }

  const summary: FuzzSummary = { seed, runs, operations: operations.map((operation) => operation.name), requests, statuses };
  t.log(`fuzzed ${operations.length} operations with ${requests} requests: ${Object.entries(statuses).map(([status, count]) => `${status}×${count}`).join(", ")}`);
  if (failures.length > 0) {
    throw new Error(`The fuzz harness found ${failures.length} failing operation(s) with seed ${seed} (FUZZ_SEED=${seed} FUZZ_RUNS=${runs} replays the run).\n\n${failures.join("\n\n")}`);
  }
  return summary;
}

/** Two users and an admin, through the app's own accounts and sign-in route; none when the app has no accounts. */
async function signInActors(app: SvcApp): Promise<Map<ActorName, Actor>> {
  const actors = new Map<ActorName, Actor>();
  let accounts: Array<[ActorName, Awaited<ReturnType<typeof createUser>>]>;
  try {
    accounts = [
      ["user", await createUser(app, { name: "Fuzz user" })],
      ["other user", await createUser(app, { name: "Fuzz other user" })],
      ["admin", await createUser(app, { name: "Fuzz admin", admin: true })],
    ];
  } catch (error) {
    // An app without authPlugin: everyone is anonymous, and forged tokens are all there is.
    if (hasErrorCode(error, AppAccountsErrors.UNAVAILABLE)) return actors;
    throw error;
  }
  for (const [name, account] of accounts) actors.set(name, { name, id: account.id, token: await loginAs(app, account) });
  return actors;
}

/**
 * Gives each actor records to aim at: for every create operation (a POST with a body on a path
 * without parameters), the seed bodies and then plausible ones, until two are accepted.
 */
async function createRecords(origin: string, operations: readonly FuzzOperation[], context: BuildContext, seed: number): Promise<void> {
  for (const operation of operations) {
    if (operation.method !== "POST" || !operation.body || operation.path.includes("{")) continue;
    // Without accounts, anonymous callers own what they create (an app open to everyone).
    const creators = context.actors.size > 0 ? [...context.actors.values()] : [{ name: "anonymous", token: undefined }];
    for (const actor of creators) {
      const sample = (optional: "all" | "some" | "none") => fc.sample(plausibleValue(operation.body!, optional), { seed: seed + actor.name.length, numRuns: 3 });
      // Seeded bodies first, then every property, then fewer: the richest accepted body makes the best base.
      const bodies = [...context.accepted.of(operation.path), ...sample("all"), ...sample("some"), ...sample("none")];
      let created = 0;
      for (const body of bodies) {
        const response = await sendRaw(origin, {
          method: "POST",
          path: operation.path,
          headers: { ...(actor.token ? { authorization: `Bearer ${actor.token}` } : {}), "content-type": "application/json" },
          body: Buffer.from(JSON.stringify(body)),
        });
        if (response.status >= 200 && response.status < 300) {
          context.ids.harvest(operation.path, actor.name, parseJson(response.body));
          context.accepted.add(operation.path, body);
          if (++created === 2) break;
        }
      }
    }
  }
}

/** The health check after each batch: the document still serves. */
async function checkStillAnswering(origin: string, batch: readonly FuzzRequest[]): Promise<void> {
  const sent = `The batch:\n${batch.map((request) => `  ${summarize(request)}`).join("\n")}`;
  let response: RawResponse;
  try {
    response = await sendRaw(origin, { method: "GET", path: "/openapi.json", headers: {} });
  } catch (error) {
    throw new FuzzFailure(`The server stopped answering after a batch: ${(error as Error).message}\n\n${sent}`);
  }
  if (response.status !== 200) throw new FuzzFailure(`After a batch, GET /openapi.json answered ${response.status}\n\n${sent}`);
}

function documentedMethods(operations: readonly FuzzOperation[]): Map<string, Set<string>> {
  const methods = new Map<string, Set<string>>();
  for (const operation of operations) {
    const set = methods.get(operation.path) ?? new Set<string>();
    set.add(operation.method);
    methods.set(operation.path, set);
  }
  return methods;
}

/** The failure as a reader needs it: what broke, the request, the answer and the server's log lines. */
function failureStory(problem: string, request: FuzzRequest, response: RawResponse, log: CapturedLog): string {
  const requestId = typeof response.headers["x-request-id"] === "string" ? response.headers["x-request-id"] : undefined;
  const logLines = log.linesFor(requestId);
  return [
    problem,
    "",
    "Request:",
    describeRequest(request),
    "",
    `Response: ${response.status} (${response.headers["content-type"] ?? "no content-type"})`,
    `  ${preview(response.body, 1_000)}`,
    ...(logLines.length > 0 ? ["", `Server log for request ${requestId}:`, ...logLines.map((line) => `  ${line}`)] : []),
  ].join("\n");
}

function failureReport(operation: FuzzOperation, details: fc.RunDetails<[RequestPlan[]]>, run: { seed: number; runs: number }): string {
  const error = details.errorInstance;
  const story = error instanceof FuzzFailure ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  const replay = `FUZZ_SEED=${run.seed} FUZZ_RUNS=${run.runs} FUZZ_OPERATION="${operation.name}" FUZZ_PATH="${details.counterexamplePath ?? ""}"`;
  const batch = details.counterexample?.[0] ?? [];
  return [
    `── ${operation.name}: failed on run ${details.numRuns} (seed ${run.seed}), minimal counterexample after ${details.numShrinks} shrinks`,
    `   replay it alone: ${replay}`,
    `   in a batch of ${batch.length} request(s); the one that failed:`,
    "",
    story,
  ].join("\n");
}

/** One line per request: enough to tell the requests of a batch apart. */
function summarize(request: FuzzRequest): string {
  return `${request.method} ${preview(Buffer.from(request.path, "latin1"), 120)} [${request.actor}] ${request.attacks.join("; ")}`;
}

function integerFromEnvironment(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value.trim() === "") return undefined;
  const number = Number(value);
  if (!Number.isInteger(number)) throw new Error(`${name} must be an integer, got "${value}"`);
  return number;
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
}
