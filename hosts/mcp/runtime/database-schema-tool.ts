import { fromJsonSchema, type McpServer } from "@modelcontextprotocol/server";
import { findDevelopmentDatabase, readDatabase } from "./development-database.js";
import { inferFieldTypes } from "./infer-field-types.js";
import { RuntimeToolErrors } from "./runtime-errors.js";
import { toolAnswer, type RuntimeToolOptions } from "./tool-result.js";

/** Shared by the database tools: a collection name the database could hold. */
export const COLLECTION_NAME_SCHEMA = {
  type: "string",
  minLength: 1,
  maxLength: 120,
  pattern: "^[^$\\u0000]+$",
  description: "Collection name, e.g. todos",
} as const;

/**
 * `database_schema`: collections, their indexes and document counts, and field types inferred
 * from a sample of each (development database: `DB_URI`, else the running server's embedded engine).
 *
 * @example
 * registerDatabaseSchemaTool(server, { cwd: process.cwd(), env: process.env });
 */
export function registerDatabaseSchemaTool(server: McpServer, options: RuntimeToolOptions): void {
  server.registerTool(
    "database_schema",
    {
      description:
        "List the development database's collections with their indexes, document count and field types inferred from sampled documents " +
        "(`DB_URI` if set, else the embedded database of the running `npm start`).",
      inputSchema: fromJsonSchema<{ collection?: string; sampleSize?: number }>({
        type: "object",
        properties: {
          collection: { ...COLLECTION_NAME_SCHEMA, description: "Only this collection (default: all)." },
          sampleSize: { type: "integer", minimum: 1, maximum: 1000, description: "Documents sampled per collection to infer field types (default 100)." },
        },
        additionalProperties: false,
      }),
      annotations: { readOnlyHint: true },
    },
    (args) =>
      toolAnswer(async () => {
        const target = await findDevelopmentDatabase(options);
        return readDatabase(target, async (db) => {
          const listed = await db.listCollections({}, { nameOnly: true }).toArray();
          const names = listed.map((entry) => entry.name).filter((name) => !name.startsWith("system.")).sort();
          if (args.collection !== undefined && !names.includes(args.collection)) {
            throw RuntimeToolErrors.INVALID_ARGUMENT(`no collection "${args.collection}" in database ${target.name} (it has: ${names.join(", ") || "none"})`);
          }
          const collections = [];
          for (const name of args.collection === undefined ? names : [args.collection]) {
            const collection = db.collection(name);
            const [indexes, count, sample] = await Promise.all([
              collection.listIndexes().toArray(),
              collection.countDocuments(),
              collection.find({}, { limit: args.sampleSize ?? 100, promoteValues: false }).toArray(),
            ]);
            collections.push({
              name,
              count,
              indexes: indexes.map(({ v: _version, ns: _namespace, ...index }) => index),
              sampled: sample.length,
              fields: inferFieldTypes(sample),
            });
          }
          return { database: target.name, source: target.source, collections };
        });
      }),
  );
}
