/**
 * What a change stream watches, as MongoDB defines the three kinds:
 * - `collection` (`aggregate: "<coll>"`): that namespace, by name (a stream may be opened before
 *   the collection exists); invalidated when it is dropped or renamed (from or onto);
 * - `database` (`aggregate: 1` on a database): its collections; invalidated by `dropDatabase`;
 * - `cluster` (`aggregate: 1` on `admin` with `allChangesForCluster`): every database but `admin`,
 *   `config` and `local`; never invalidated.
 * `system.*` collections are never watched, and neither is the temporary collection `$out`
 * writes into (`tmp.agg_out.*`): only its final rename onto the target shows.
 */
export type ChangeStreamScope =
  | { readonly level: "collection"; readonly db: string; readonly coll: string }
  | { readonly level: "database"; readonly db: string }
  | { readonly level: "cluster" };

const INTERNAL_DATABASES = new Set(["admin", "config", "local"]);

/** The prefix of `$out`'s temporary collection (see commands/pipeline-output.ts). */
export const OUT_TEMP_PREFIX = "tmp.agg_out.";

/**
 * True when events on `db.coll` belong to the stream.
 *
 * @example
 * watchesCollection({level: "database", db: "app"}, "app", "todos"); // true
 * watchesCollection({level: "database", db: "app"}, "app", "tmp.agg_out.1"); // false
 */
export function watchesCollection(scope: ChangeStreamScope, db: string, coll: string): boolean {
  if (coll.startsWith("system.") || coll.startsWith(OUT_TEMP_PREFIX)) return false;
  switch (scope.level) {
    case "collection":
      return scope.db === db && scope.coll === coll;
    case "database":
      return scope.db === db;
    case "cluster":
      return !INTERNAL_DATABASES.has(db);
  }
}

/**
 * True when a `dropDatabase` of `db` belongs to the stream (never for a collection stream: it is
 * invalidated by the drop of its collection, which the engine logs first, as mongod does).
 *
 * @example
 * watchesDatabaseDrop({level: "cluster"}, "app"); // true
 */
export function watchesDatabaseDrop(scope: ChangeStreamScope, db: string): boolean {
  switch (scope.level) {
    case "collection":
      return false;
    case "database":
      return scope.db === db;
    case "cluster":
      return !INTERNAL_DATABASES.has(db);
  }
}

/**
 * The namespace `$currentOp` and `getMore` know the stream's cursor by: the collection, or
 * `<db>.$cmd.aggregate` for database and cluster streams (cluster streams run on `admin`).
 *
 * @example
 * scopeCursorNamespace({level: "database", db: "app"}); // "app.$cmd.aggregate"
 */
export function scopeCursorNamespace(scope: ChangeStreamScope): string {
  switch (scope.level) {
    case "collection":
      return `${scope.db}.${scope.coll}`;
    case "database":
      return `${scope.db}.$cmd.aggregate`;
    case "cluster":
      return "admin.$cmd.aggregate";
  }
}
