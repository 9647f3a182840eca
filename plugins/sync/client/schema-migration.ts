import type { LocalDatabase } from "./local-database.js";
import type { PersistedTables } from "./persister.js";
import type { OutboxRow, ServerEntityRecord } from "./records.js";

/** What a `migrate` hook is given: the stored tables, as the previous release wrote them. */
export interface SchemaMigrationInput {
  readonly fromVersion: number;
  readonly toVersion: number;
  readonly entities: readonly ServerEntityRecord[];
  readonly outbox: readonly OutboxRow[];
}

/**
 * What a `migrate` hook answers: the tables in the new shape (a table left out is kept as it is),
 * or `"resync"` to drop the stored server state and page it again (the outbox is kept).
 */
export type SchemaMigrationResult = { readonly entities?: readonly ServerEntityRecord[]; readonly outbox?: readonly OutboxRow[] } | "resync";

/**
 * The app's migration between releases (option `migrate`): called at `start()` when the stored
 * tables carry another `schemaVersion` than the client's.
 *
 * @example
 * const migrate: SchemaMigration = ({ outbox }) => ({
 *   outbox: outbox.map((row) => (row.data?.title === undefined ? row : { ...row, data: { ...row.data, name: row.data.title, title: undefined } })),
 * });
 */
export type SchemaMigration = (input: SchemaMigrationInput) => SchemaMigrationResult | Promise<SchemaMigrationResult>;

/** What happened at start (for the debug log). */
export interface SchemaOutcome {
  readonly from?: number;
  readonly to: number;
  readonly strategy: "current" | "marked" | "resync" | "migrated";
  readonly pending: number;
  /** The migration hook threw: the stored server state was re-synced instead, the outbox kept as it was. */
  readonly migrationError?: unknown;
}

/**
 * Brings loaded tables to `schemaVersion`. A database with no marker is new (or from before
 * markers, taken as version 1) and is only marked. On another version: the app's `migrate` hook,
 * or by default a re-sync — server states and cursors dropped (snapshots page them again from 0),
 * `_outbox` and `_conflicts` kept. Pending mutations are never dropped by the client: only a
 * migration that returns an outbox without them removes them.
 */
export async function applySchemaVersion(database: LocalDatabase, tables: PersistedTables, schemaVersion: number, migrate: SchemaMigration | undefined): Promise<SchemaOutcome> {
  const stored = tables._meta?.find((record) => record.key === "schema")?.version;
  const pending = tables._outbox.length;
  if (stored === schemaVersion) return { from: stored, to: schemaVersion, strategy: "current", pending };
  const empty = tables.entities.length + tables._outbox.length + tables._cursors.length + tables._conflicts.length === 0;
  if (stored === undefined && (empty || schemaVersion === 1)) {
    database.change(() => database.putSchema({ key: "schema", version: schemaVersion }));
    return { to: schemaVersion, strategy: "marked", pending };
  }
  const from = stored ?? 1;
  let result: SchemaMigrationResult = "resync";
  let migrationError: unknown;
  if (migrate) {
    try {
      result = await migrate({ fromVersion: from, toVersion: schemaVersion, entities: structuredClone(tables.entities), outbox: structuredClone(tables._outbox) });
      // Typed, but called from plain JS too: an answer that is not the documented shape is a
      // failed migration (re-sync, outbox kept), not a crash that starts the app empty.
      if (!isMigrationResult(result)) throw new Error(`migrate returned ${result === null ? "null" : typeof result}, not "resync" or {entities?, outbox?} with arrays`);
    } catch (error) {
      migrationError = error;
      result = "resync";
    }
  }
  database.change(() => {
    if (result === "resync") {
      for (const record of [...database.serverStates()]) database.removeServerState(record.collection, record.id);
      for (const cursor of database.cursorList()) database.removeCursor(cursor.stream);
    } else {
      if (result.entities) {
        const kept = new Set(result.entities.map((record) => `${record.collection}/${record.id}`));
        for (const record of [...database.serverStates()]) if (!kept.has(`${record.collection}/${record.id}`)) database.removeServerState(record.collection, record.id);
        for (const record of result.entities) database.putServerState(record);
      }
      if (result.outbox) {
        const kept = new Set(result.outbox.map((row) => row.mutationId));
        for (const row of [...database.outbox()]) if (!kept.has(row.mutationId)) database.removeRow(row.mutationId);
        for (const row of result.outbox) database.putRow(row);
      }
    }
    database.putSchema({ key: "schema", version: schemaVersion });
  });
  return { from, to: schemaVersion, strategy: result === "resync" ? "resync" : "migrated", pending: database.outbox().length, ...(migrationError === undefined ? {} : { migrationError }) };
}

function isMigrationResult(value: unknown): value is SchemaMigrationResult {
  if (value === "resync") return true;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { entities, outbox } = value as { entities?: unknown; outbox?: unknown };
  return (entities === undefined || Array.isArray(entities)) && (outbox === undefined || Array.isArray(outbox));
}
