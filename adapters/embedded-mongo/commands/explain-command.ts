import type { Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { describePlan, executionStatsOf } from "../planner/explain-plan.js";
import { REPORTED_VERSION } from "./server-commands.js";
import type { CommandContext, CommandHandler } from "./command-context.js";
import { countArgument, documentArgument, isPlainDocument, targetCollection } from "./command-arguments.js";
import { parseFind } from "./find-command.js";
import { prepareCommandQuery } from "./query-execution.js";
import { splitPipelinePushdown } from "./pipeline-pushdown.js";
import type { PreparedQuery } from "./query-execution.js";

type Verbosity = "queryPlanner" | "executionStats" | "allPlansExecution";

/**
 * `explain` for find, count, distinct, update, delete, findAndModify and aggregate: the chosen
 * plan (`IXSCAN` with `indexName`/`indexBounds`, `IDHACK` or `COLLSCAN`) and, from verbosity
 * `executionStats` on, `nReturned`, `totalKeysExamined` and `totalDocsExamined` of a real run of the
 * query. Writes are never performed: update/delete explains only run their query part.
 *
 * @example
 * await engine.runCommand("app", {explain: {find: "users", filter: {email: "a@b.c"}}, verbosity: "executionStats"});
 */
export const explainCommand: CommandHandler = async (ctx) => {
  const inner = ctx.command["explain"];
  if (!isPlainDocument(inner)) throw new EngineError(ErrorCodes.TypeMismatch, "explain command requires a nested object");
  const verbosity = parseVerbosity(ctx.command["verbosity"]);
  const name = Object.keys(inner)[0] ?? "";
  const innerCtx: CommandContext = { ...ctx, command: inner, name };
  let explained: Document;
  switch (name) {
    case "find":
      explained = explainFind(innerCtx, verbosity);
      break;
    case "count":
    case "distinct":
      explained = explainSimple(innerCtx, verbosity, "query", name === "count" ? "COUNT" : "DISTINCT");
      break;
    case "delete":
    case "update":
      explained = explainWrite(innerCtx, verbosity, name);
      break;
    case "findAndModify":
    case "findandmodify":
      explained = explainSimple(innerCtx, verbosity, "query", innerCtx.command["remove"] === true ? "DELETE" : "UPDATE", documentArgument(innerCtx, "sort"));
      break;
    case "aggregate":
      explained = explainAggregate(innerCtx, verbosity);
      break;
    default:
      throw new EngineError(ErrorCodes.CommandNotFound, `Explain failed due to unknown command: ${name}`);
  }
  return {
    explainVersion: "1",
    ...explained,
    command: { ...inner, $db: ctx.db },
    serverInfo: { host: "localhost", port: Number(ctx.services.advertisedAddress.split(":").pop()), version: REPORTED_VERSION, gitVersion: "svc-embedded-mongo" },
    serverParameters: {},
    ok: 1,
  };
};

function parseVerbosity(value: unknown): Verbosity {
  if (value === undefined || value === null) return "allPlansExecution";
  if (value === "queryPlanner" || value === "executionStats" || value === "allPlansExecution") return value;
  throw new EngineError(ErrorCodes.FailedToParse, `verbosity string must be one of {'queryPlanner', 'executionStats', 'allPlansExecution'}`);
}

function explainFind(ctx: CommandContext, verbosity: Verbosity): Document {
  const parsed = parseFind(ctx);
  return render(ctx, parsed.query, verbosity, {
    filter: documentArgument(ctx, "filter") ?? {},
    sort: documentArgument(ctx, "sort"),
    skip: parsed.skip,
    limit: parsed.limit,
    projection: parsed.projection,
  });
}

function explainSimple(ctx: CommandContext, verbosity: Verbosity, filterField: string, root: string, sort?: Document): Document {
  const name = targetCollection(ctx);
  const collection = ctx.services.storage.collection(ctx.db, name);
  const filter = documentArgument(ctx, filterField) ?? {};
  const query = prepareCommandQuery(ctx, collection, {
    filter,
    sort,
    skip: countArgument(ctx, "skip"),
    limit: root === "COUNT" ? countArgument(ctx, "limit") : root === "DISTINCT" ? undefined : 1,
  });
  return render(ctx, query, verbosity, { filter, sort, root });
}

function explainWrite(ctx: CommandContext, verbosity: Verbosity, name: "update" | "delete"): Document {
  const statements = ctx.command[name === "update" ? "updates" : "deletes"];
  const statement = Array.isArray(statements) && isPlainDocument(statements[0]) ? statements[0] : undefined;
  if (!statement) throw new EngineError(ErrorCodes.FailedToParse, `explain ${name} requires one statement`);
  const collectionName = targetCollection(ctx);
  const collection = ctx.services.storage.collection(ctx.db, collectionName);
  const filter = documentArgument(ctx, "q", statement) ?? {};
  const single = name === "update" ? statement["multi"] !== true : statement["limit"] !== 0 && statement["limit"] !== undefined;
  const query = prepareCommandQuery(ctx, collection, { filter, limit: single ? 1 : 0 }, statement);
  return render(ctx, query, verbosity, { filter, root: name === "update" ? "UPDATE" : "DELETE" });
}

function explainAggregate(ctx: CommandContext, verbosity: Verbosity): Document {
  const name = targetCollection(ctx);
  const collection = ctx.services.storage.collection(ctx.db, name);
  const pipeline = Array.isArray(ctx.command["pipeline"]) ? (ctx.command["pipeline"] as Document[]) : [];
  const { filter, sort, skip, limit, rest } = splitPipelinePushdown(pipeline);
  const query = prepareCommandQuery(ctx, collection, { filter, sort, skip, limit });
  const cursorStage = render(ctx, query, verbosity, { filter, sort, skip: skip || undefined, limit: limit || undefined });
  return { stages: [{ $cursor: cursorStage }, ...rest] };
}

function render(
  ctx: CommandContext,
  query: PreparedQuery,
  verbosity: Verbosity,
  decorations: { filter: Document; sort?: Document | undefined; skip?: number | undefined; limit?: number | undefined; projection?: Document | undefined; root?: string | undefined },
): Document {
  const winningPlan = describePlan(query.plan, { ...decorations, blockingSort: query.blockingSort });
  const collectionName = String(ctx.command[ctx.name]);
  const out: Document = {
    queryPlanner: {
      namespace: `${ctx.db}.${collectionName}`,
      indexFilterSet: false,
      parsedQuery: decorations.filter,
      winningPlan,
      rejectedPlans: [],
    },
  };
  if (verbosity !== "queryPlanner") {
    const started = Date.now();
    let nReturned = 0;
    for (const _record of query.run()) nReturned += 1;
    out["executionStats"] = executionStatsOf(query.stats, nReturned, winningPlan, Date.now() - started);
    if (verbosity === "allPlansExecution") (out["executionStats"] as Document)["allPlansExecution"] = [];
  }
  return out;
}
