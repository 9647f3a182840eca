import type { Document } from "bson";
import { optionNumber } from "../bson-number.js";
import { parseIndexSpec } from "../storage/index-spec.js";
import { splitNamespace } from "../storage/namespace.js";
import type { Storage } from "../storage/storage.js";
import type { CollModOp, CollectionOptions, WriteOp } from "../storage/write-ops.js";
import type { JournalEntry } from "./entry-codec.js";

/**
 * Turns a journaled entry back into the `WriteOp` that reproduces it, against the storage as
 * replay has rebuilt it so far (updates and deletes name the document currently stored, which is
 * exactly the `before` the original commit saw). Collections are re-created with their original
 * UUID. Documents bypass validation: replay re-applies what was accepted, it does not re-judge it
 * (a validator may have changed since, or the write may have bypassed it).
 *
 * @example
 * for (const entry of batch) storage.commit({ops: [entryToWriteOp(storage, entry)]});
 */
export function entryToWriteOp(storage: Storage, entry: JournalEntry): WriteOp {
  const { db, collection } = splitNamespace(entry.ns);
  switch (entry.op) {
    case "i":
      return { op: "insert", db, collection, doc: entry.o, bypassDocumentValidation: true };
    case "u":
      return { op: "update", db, collection, before: current(storage, db, collection, entry), after: entry.o, bypassDocumentValidation: true };
    case "d":
      return { op: "delete", db, collection, before: current(storage, db, collection, entry) };
    case "c":
      return commandToWriteOp(db, entry);
  }
}

function current(storage: Storage, db: string, collection: string, entry: JournalEntry): Document {
  const id = (entry.o2 ?? entry.o)["_id"];
  const record = storage.collection(db, collection)?.findById(id);
  if (!record) throw new Error(`${entry.op === "u" ? "updated" : "deleted"} document ${JSON.stringify(id)} does not exist in ${entry.ns}`);
  return record.doc;
}

function commandToWriteOp(db: string, entry: JournalEntry): WriteOp {
  const o = entry.o;
  const name = Object.keys(o)[0];
  switch (name) {
    case "create": {
      const { create, idIndex: _idIndex, ...options } = o;
      return { op: "createCollection", db, collection: String(create), options: collectionOptions(options), ...(entry.ui ? { uuid: entry.ui } : {}) };
    }
    case "drop":
      return { op: "dropCollection", db, collection: String(o["drop"]) };
    case "renameCollection": {
      const from = splitNamespace(String(o["renameCollection"]));
      const to = splitNamespace(String(o["to"]));
      return {
        op: "renameCollection",
        db: from.db,
        collection: from.collection,
        toDb: to.db,
        toCollection: to.collection,
        dropTarget: o["dropTarget"] === true,
      };
    }
    case "dropDatabase":
      return { op: "dropDatabase", db };
    case "createIndexes": {
      const { createIndexes, ...spec } = o;
      return { op: "createIndexes", db, collection: String(createIndexes), specs: [parseIndexSpec(spec)] };
    }
    case "dropIndexes":
      return { op: "dropIndexes", db, collection: String(o["dropIndexes"]), names: [String(o["index"])] };
    case "collMod":
      return collModOp(db, o);
    default:
      throw new Error(`unknown journaled command ${JSON.stringify(name)}`);
  }
}

/**
 * Rebuilds `CollectionOptions` from the options document `create` entries and snapshots carry
 * (`CollectionData.optionsDocument()`): validator settings are typed fields, the rest is `other`.
 *
 * @example
 * collectionOptions({validator: {a: {$type: "string"}}, collation: {locale: "fr"}});
 * // {validator: {...}, other: {collation: {locale: "fr"}}}
 */
export function collectionOptions(document: Document): CollectionOptions {
  const { validator, validationLevel, validationAction, ...other } = document;
  return {
    ...(validator !== undefined ? { validator: validator as Document } : {}),
    ...(validationLevel !== undefined ? { validationLevel: validationLevel as CollectionOptions["validationLevel"] } : {}),
    ...(validationAction !== undefined ? { validationAction: validationAction as CollectionOptions["validationAction"] } : {}),
    ...(Object.keys(other).length > 0 ? { other } : {}),
  };
}

function collModOp(db: string, o: Document): CollModOp {
  const changes = Array.isArray(o["index"]) ? (o["index"] as Document[]) : undefined;
  return {
    op: "collMod",
    db,
    collection: String(o["collMod"]),
    ...(o["validator"] !== undefined ? { validator: o["validator"] as Document } : {}),
    ...(o["validationLevel"] !== undefined ? { validationLevel: o["validationLevel"] as CollModOp["validationLevel"] } : {}),
    ...(o["validationAction"] !== undefined ? { validationAction: o["validationAction"] as CollModOp["validationAction"] } : {}),
    ...(o["changeStreamPreAndPostImages"] !== undefined
      ? { changeStreamPreAndPostImages: { enabled: (o["changeStreamPreAndPostImages"] as Document)["enabled"] === true } }
      : {}),
    ...(typeof o["viewOn"] === "string" ? { view: { viewOn: o["viewOn"], pipeline: (o["pipeline"] as Document[] | undefined) ?? [] } } : {}),
    ...(changes
      ? {
          indexChanges: changes.map((change) => {
            const expireAfterSeconds = optionNumber(change["expireAfterSeconds"]);
            return {
              name: String(change["name"]),
              ...(expireAfterSeconds !== undefined ? { expireAfterSeconds } : {}),
              ...(typeof change["hidden"] === "boolean" ? { hidden: change["hidden"] } : {}),
            };
          }),
        }
      : {}),
  };
}
