import { fromJsonSchema, type McpServer } from "@modelcontextprotocol/server";
import mongoose from "mongoose";
import { COLLECTION_NAME_SCHEMA } from "./database-schema-tool.js";
import { findDevelopmentDatabase, readDatabase } from "./development-database.js";
import { findRefusedOperator } from "./read-only-query.js";
import { RuntimeToolErrors } from "./runtime-errors.js";
import { toolAnswer, type RuntimeToolOptions } from "./tool-result.js";

/** Most documents one call returns. */
export const MAX_QUERY_LIMIT = 100;
/** Most characters of documents one answer carries; documents past it are left out. */
export const MAX_ANSWER_CHARS = 100_000;

interface QueryArgs {
  collection: string;
  operation?: "find" | "aggregate";
  filter?: Record<string, unknown>;
  projection?: Record<string, unknown>;
  sort?: Record<string, unknown>;
  skip?: number;
  pipeline?: Record<string, unknown>[];
  limit?: number;
}

const { EJSON } = mongoose.mongo.BSON;

/**
 * `database_query`: a read-only `find` or `aggregate` on the development database. Values are
 * Extended JSON (`{"$oid": "..."}`, `{"$date": "..."}`), results are bounded (`limit` ≤ 100 and
 * ~100 KB of text), and `$out`, `$merge` and server-side JavaScript are refused; the tool has no
 * code path that writes.
 *
 * @example
 * registerDatabaseQueryTool(server, { cwd: process.cwd(), env: process.env });
 */
export function registerDatabaseQueryTool(server: McpServer, options: RuntimeToolOptions): void {
  server.registerTool(
    "database_query",
    {
      description:
        "Read documents from the development database with find (filter, projection, sort, skip) or an aggregation pipeline. " +
        "Read-only: $out, $merge, $where, $function and $accumulator are refused. Values use MongoDB Extended JSON ({\"$oid\": ...}). " +
        `At most ${MAX_QUERY_LIMIT} documents per call (default 20).`,
      inputSchema: fromJsonSchema<QueryArgs>({
        type: "object",
        properties: {
          collection: COLLECTION_NAME_SCHEMA,
          operation: { enum: ["find", "aggregate"], description: "find (default) or aggregate." },
          filter: { type: "object", description: "find: query filter, e.g. {\"done\": false}." },
          projection: { type: "object", description: "find: fields to include or exclude, e.g. {\"title\": 1}." },
          sort: { type: "object", description: "find: sort order, e.g. {\"created\": -1} (newest first: svc's timestamp fields are created and updated)." },
          skip: { type: "integer", minimum: 0, maximum: 1_000_000, description: "find: documents to skip." },
          pipeline: { type: "array", items: { type: "object" }, maxItems: 50, description: "aggregate: the stages, e.g. [{\"$group\": {\"_id\": \"$done\", \"n\": {\"$sum\": 1}}}]." },
          limit: { type: "integer", minimum: 1, maximum: MAX_QUERY_LIMIT, description: `Most documents returned (default 20, at most ${MAX_QUERY_LIMIT}).` },
        },
        required: ["collection"],
        additionalProperties: false,
      }),
      annotations: { readOnlyHint: true },
    },
    (args) =>
      toolAnswer(async () => {
        const operation = args.operation ?? "find";
        const limit = args.limit ?? 20;
        if (operation === "aggregate" && args.pipeline === undefined) throw RuntimeToolErrors.INVALID_ARGUMENT("aggregate needs a pipeline");
        if (operation === "aggregate" && (args.filter ?? args.projection ?? args.sort ?? args.skip) !== undefined) {
          throw RuntimeToolErrors.INVALID_ARGUMENT("filter, projection, sort and skip belong to find; put them in the pipeline as stages");
        }
        if (operation === "find" && args.pipeline !== undefined) throw RuntimeToolErrors.INVALID_ARGUMENT("pipeline belongs to aggregate");
        const refused = findRefusedOperator([args.filter, args.projection, args.sort, args.pipeline]);
        if (refused) throw RuntimeToolErrors.WRITE_REFUSED(refused);
        const filter = fromExtendedJson(args.filter ?? {}, "filter");
        const pipeline = fromExtendedJson(args.pipeline ?? [], "pipeline");
        const target = await findDevelopmentDatabase(options);
        // One more than asked tells whether the answer is complete.
        const documents = await readDatabase(target, (db) => {
          const collection = db.collection(args.collection);
          return operation === "find"
            ? collection.find(filter, { projection: args.projection, sort: args.sort as never, skip: args.skip, limit: limit + 1, maxTimeMS: 10_000 }).toArray()
            : collection.aggregate([...pipeline, { $limit: limit + 1 }], { maxTimeMS: 10_000 }).toArray();
        });
        return bounded(args.collection, operation, documents, limit);
      }),
  );
}

function fromExtendedJson<T>(value: T, name: string): T {
  try {
    return EJSON.deserialize(value as never, { relaxed: true }) as T;
  } catch (error) {
    throw RuntimeToolErrors.INVALID_ARGUMENT(`${name} is not valid Extended JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function bounded(collection: string, operation: string, documents: readonly unknown[], limit: number): Record<string, unknown> {
  const kept: unknown[] = [];
  let size = 0;
  let cutBySize = false;
  for (const document of documents.slice(0, limit)) {
    const json = EJSON.serialize(document as never, { relaxed: true });
    size += JSON.stringify(json).length;
    if (size > MAX_ANSWER_CHARS) {
      cutBySize = true;
      break;
    }
    kept.push(json);
  }
  return {
    collection,
    operation,
    returned: kept.length,
    // More matched than returned: over the limit, or cut to keep the answer small.
    truncated: documents.length > limit || cutBySize,
    ...(cutBySize ? { note: `answer cut at ~${MAX_ANSWER_CHARS} characters: narrow the projection or lower the limit` } : {}),
    documents: kept,
  };
}
