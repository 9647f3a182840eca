import { EngineError, ErrorCodes } from "../engine-error.js";

/** Characters MongoDB forbids in database names (NamespaceString::validDBName). */
const BAD_DB_CHARS = /[/\\. "$*<>:|?\0]/;
const MAX_DB_NAME_LENGTH = 63;
const MAX_NAMESPACE_LENGTH = 255;

/**
 * Throws `InvalidNamespace` (73) unless `name` is a database name MongoDB accepts.
 *
 * @example
 * assertValidDatabaseName("app"); // ok
 * assertValidDatabaseName("a.b"); // throws code 73
 */
export function assertValidDatabaseName(name: unknown): asserts name is string {
  if (typeof name !== "string" || name.length === 0 || name.length > MAX_DB_NAME_LENGTH || BAD_DB_CHARS.test(name)) {
    throw new EngineError(ErrorCodes.InvalidNamespace, `Invalid database name: '${String(name)}'`);
  }
}

/**
 * Throws `InvalidNamespace` (73) unless `db.collection` is a namespace a user may read or write.
 * `system.*` collections are reserved (the engine does not implement any).
 *
 * @example
 * assertValidCollectionName("app", "todos");
 */
export function assertValidCollectionName(db: string, collection: unknown): asserts collection is string {
  assertValidDatabaseName(db);
  if (
    typeof collection !== "string" ||
    collection.length === 0 ||
    collection.includes("\0") ||
    collection.includes("$") ||
    collection.startsWith(".") ||
    collection.startsWith("system.") ||
    db.length + 1 + collection.length > MAX_NAMESPACE_LENGTH
  ) {
    throw new EngineError(ErrorCodes.InvalidNamespace, `Invalid namespace specified '${db}.${String(collection)}'`);
  }
}

/**
 * Splits `db.collection` at the first dot (collection names may contain dots, database names not).
 *
 * @example
 * splitNamespace("app.users.archive"); // {db: "app", collection: "users.archive"}
 */
export function splitNamespace(ns: string): { db: string; collection: string } {
  const dot = ns.indexOf(".");
  if (dot <= 0) throw new EngineError(ErrorCodes.InvalidNamespace, `Invalid namespace specified '${ns}'`);
  return { db: ns.slice(0, dot), collection: ns.slice(dot + 1) };
}
