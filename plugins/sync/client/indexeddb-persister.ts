import { openDB, type IDBPDatabase } from "idb";
import { serverKeyProvider } from "./key-providers.js";
import type { PersistedChange, PersistedTableName, PersistedTables, SyncPersister, SyncPersisterContext, SyncPersisterFactory } from "./persister.js";
import { importBaseKey, recordCipher, sha256Hex, type RecordCipher, type SealedRecord, type WebCryptoKey } from "./record-cipher.js";
import type { DecryptFailureHandler, SyncKeyProvider } from "./sync-db-options.js";


/** Options of `createIndexedDbPersister` (the same-named `createSyncDb` options are handed on by default). */
export interface IndexedDbPersisterOptions {
  /** Where the key material comes from the first time on a device; default `serverKeyProvider()` (`GET /sync/key`). */
  readonly keyProvider?: SyncKeyProvider;
  /** What to do when stored data cannot be decrypted (a lost or different key); default: wipe it and sync again. */
  readonly onDecryptFailure?: DecryptFailureHandler;
  /**
   * Test hook, called with each object store's name (`entities`, `outbox`, `cursors`,
   * `conflicts`, `meta`) before it is read at load: throw to simulate a storage read error;
   * return an array to replace what was read (the stored, encrypted records); `undefined` reads normally.
   */
  readonly idbGetImpl?: (key: string) => Promise<unknown>;
  /** Test hook, called with `<store>/<storage key>` and the encrypted record before each write (throw to fail the write). */
  readonly idbSetImpl?: (key: string, value: unknown) => Promise<void>;
}

/** Object store of each table; `keys` holds the device's base key and a check record, and is not a table. */
const STORES: Record<PersistedTableName, string> = { entities: "entities", _outbox: "outbox", _cursors: "cursors", _conflicts: "conflicts", _meta: "meta" };
const TABLES = Object.keys(STORES) as PersistedTableName[];
const KEY_CHECK = "svc-sync key check";

interface StoredRecord extends SealedRecord {
  readonly key: string;
}

/** Thrown inside `load` when a record cannot be decrypted (never a storage failure). */
class DecryptError extends Error {}

/**
 * The durable, encrypted persister for browsers (SPEC §5.6): one IndexedDB database per app name
 * and user, one record per entity, outbox row, cursor and conflict, each AES-256-GCM encrypted under
 * a non-extractable key, its storage key an HMAC of the entity id (so ids are not readable either).
 * The changes of one step are written in one transaction; nothing is ever rewritten whole.
 *
 * The key: on the first start on a device the `keyProvider`'s 32 bytes are imported as a
 * non-extractable HKDF key and kept in the database, so later starts need no network. Data that
 * cannot be decrypted is wiped and synced again (pending changes included), unless
 * `onDecryptFailure` answers `"keep"`: the client then runs from memory (`persistence: "error"`)
 * and leaves the stored data alone, as it does after a storage read error.
 *
 * `createSyncDb` uses it by default where `indexedDB` exists.
 *
 * @example
 * import { createIndexedDbPersister, localKeyProvider } from "svc/sync/client";
 * const db = createSyncDb({ ...options, persisterFactory: createIndexedDbPersister({ keyProvider: localKeyProvider() }) });
 */
export function createIndexedDbPersister(options: IndexedDbPersisterOptions = {}): SyncPersisterFactory {
  return async (context) => {
    if (!hasIndexedDb()) throw new Error("IndexedDB is not available here (in Node, import fake-indexeddb/auto)");
    const databaseName = `svc-sync:${context.name}:${(await sha256Hex(context.userId)).slice(0, 32)}`;
    const db = await openDB(databaseName, 1, {
      upgrade(database) {
        for (const store of [...Object.values(STORES), "keys"]) database.createObjectStore(store, { keyPath: "key" });
      },
    });
    return new IndexedDbPersister(db, context, options);
  };
}

class IndexedDbPersister implements SyncPersister {
  readonly kind = "durable";
  private cipher: RecordCipher | undefined;

  constructor(
    private readonly db: IDBPDatabase,
    private readonly context: SyncPersisterContext,
    private readonly options: IndexedDbPersisterOptions,
  ) {}

  async load(): Promise<PersistedTables> {
    // Read everything first: a storage failure here rejects (persistence "error"), nothing written.
    const raw = await Promise.all(TABLES.map((table) => this.readStore(STORES[table])));
    const stored = (await this.db.getAll("keys")) as Array<{ key: string; base?: WebCryptoKey } & Partial<SealedRecord>>;
    try {
      this.cipher = await this.cipherFrom(stored);
      const tables = await Promise.all(raw.map((records, index) => this.openAll(TABLES[index]!, records)));
      return Object.fromEntries(TABLES.map((table, index) => [table, tables[index]])) as unknown as PersistedTables;
    } catch (error) {
      if (!(error instanceof DecryptError)) throw error;
      const decision = (await this.options.onDecryptFailure?.({ name: this.context.name, userId: this.context.userId, error })) ?? "wipe";
      if (decision !== "wipe") throw error;
      await this.wipeAll();
      this.cipher = await this.cipherFrom([]);
      return { entities: [], _outbox: [], _cursors: [], _conflicts: [], _meta: [] };
    }
  }

  async write(changes: readonly PersistedChange[]): Promise<void> {
    const cipher = this.cipher;
    if (!cipher) throw new Error("write before load");
    // Encrypt before the transaction opens: IndexedDB commits a transaction left idle across an await.
    const prepared = await Promise.all(
      changes.map(async (change) => {
        const store = STORES[change.table];
        const key = await cipher.storageKey(change.table, change.key);
        const sealed = change.value === undefined ? undefined : { key, ...(await cipher.seal(key, change.value)) };
        return { store, key, sealed };
      }),
    );
    if (this.options.idbSetImpl) {
      for (const entry of prepared) await this.options.idbSetImpl(`${entry.store}/${entry.key}`, entry.sealed);
    }
    const stores = [...new Set(prepared.map((entry) => entry.store))];
    if (stores.length === 0) return;
    const tx = this.db.transaction(stores, "readwrite");
    for (const entry of prepared) {
      const store = tx.objectStore(entry.store);
      if (entry.sealed) void store.put(entry.sealed);
      else void store.delete(entry.key);
    }
    await tx.done;
  }

  async clear(): Promise<void> {
    // The key stays: a running client keeps writing under it.
    const stores = Object.values(STORES);
    const tx = this.db.transaction(stores, "readwrite");
    await Promise.all([...stores.map((store) => tx.objectStore(store).clear()), tx.done]);
  }

  async close(): Promise<void> {
    this.db.close();
  }

  private async readStore(store: string): Promise<readonly StoredRecord[]> {
    const replaced = await this.options.idbGetImpl?.(store);
    if (replaced !== undefined) {
      if (!Array.isArray(replaced)) throw new Error(`idbGetImpl(${store}) returned something other than an array of records`);
      return replaced as StoredRecord[];
    }
    return (await this.db.getAll(store)) as StoredRecord[];
  }

  private async openAll(table: PersistedTableName, records: readonly StoredRecord[]): Promise<unknown[]> {
    const cipher = this.cipher!;
    return Promise.all(
      records.map(async (record) => {
        try {
          return await cipher.open(record.key, record);
        } catch (error) {
          throw new DecryptError(`a ${table} record could not be decrypted`, { cause: error });
        }
      }),
    );
  }

  /**
   * The cipher from the stored base key, checked against the stored check record; on a first
   * start (or after a wipe, or when the key was lost), from the key provider's material, stored
   * with a new check record. Records written under another key then fail to open in `load`.
   */
  private async cipherFrom(stored: ReadonlyArray<{ key: string; base?: WebCryptoKey } & Partial<SealedRecord>>): Promise<RecordCipher> {
    const base = stored.find((record) => record.key === "base")?.base;
    const check = stored.find((record) => record.key === "check");
    if (base) {
      const cipher = await recordCipher(base, this.context.name);
      if (check?.iv && check.data) {
        const opened = await cipher.open("check", check as SealedRecord).catch(() => undefined);
        if (opened !== KEY_CHECK) throw new DecryptError("the stored key does not open the stored data");
        return cipher;
      }
    }
    const material = await this.material();
    const fresh = await importBaseKey(material);
    material.fill(0);
    const cipher = await recordCipher(fresh, this.context.name);
    const sealedCheck = { key: "check", ...(await cipher.seal("check", KEY_CHECK)) };
    const tx = this.db.transaction("keys", "readwrite");
    await Promise.all([tx.store.put({ key: "base", base: fresh }), tx.store.put(sealedCheck), tx.done]);
    return cipher;
  }

  private async material(): Promise<Uint8Array> {
    const provider = this.options.keyProvider ?? serverKeyProvider();
    const { httpChannel, getToken } = this.context;
    const token = (await getToken?.()) ?? "";
    if (!httpChannel && !this.options.keyProvider) throw new Error("the server key provider needs the client's httpChannel");
    return provider.getKey({ userId: this.context.userId, httpChannel: httpChannel!, token });
  }

  private async wipeAll(): Promise<void> {
    const stores = [...Object.values(STORES), "keys"];
    const tx = this.db.transaction(stores, "readwrite");
    await Promise.all([...stores.map((store) => tx.objectStore(store).clear()), tx.done]);
  }
}

/** Whether this platform has IndexedDB (browsers; Node with fake-indexeddb). */
export function hasIndexedDb(): boolean {
  return (globalThis as { indexedDB?: unknown }).indexedDB !== undefined;
}
