import type { Binary, Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { splitNamespace } from "../storage/namespace.js";
import type { Storage } from "../storage/storage.js";
import type { OplogEntry } from "../storage/write-ops.js";
import { watchesCollection, watchesDatabaseDrop } from "./change-stream-scope.js";
import type { ChangeStreamScope } from "./change-stream-scope.js";
import type { ChangeStreamSpec } from "./change-stream-spec.js";
import { encodeResumeToken } from "./resume-token.js";

/** What one oplog entry means to one stream: its events, and whether it ends the stream. */
export interface EntryEvents {
  /** The change events (before the user's pipeline), in order; the invalidate comes last. */
  readonly events: Document[];
  /** The entry invalidates the stream: its last event is the invalidate event. */
  readonly invalidates: boolean;
}

const NONE: EntryEvents = { events: [], invalidates: false };

/**
 * On an event whose required pre- or post-image is missing: the error to raise if the event
 * survives the stream's own stages. mongod moves a stream's `$match` on `ns`/`operationType` ahead
 * of the image lookup, so a database-level stream with `fullDocument: "required"` that matches only
 * image-enabled collections never fails on another collection's update.
 */
export const MISSING_IMAGE: unique symbol = Symbol("svc.missingImage");

/**
 * A required image that was not found. Most such events never reach a client (a stream's `$match`
 * drops them: the sync feed's counter updates, say), so the error — whose stack is costly — is
 * built only when one is raised.
 */
class MissingImage {
  constructor(
    private readonly image: "post" | "pre",
    private readonly ts: OplogEntry["ts"],
  ) {}

  error(): EngineError {
    const what = this.image === "post" ? "a post-image for all update events" : "a pre-image for all update, delete and replace events";
    return new EngineError(ErrorCodes.NoMatchingDocument, `Change stream was configured to require ${what}, but the ${this.image}-image was not found for event ${this.ts.toString()}`);
  }
}

/**
 * The deferred missing-image error of an event, if any, as a function that builds it: the caller
 * raises it only if the event survives its stream's stages.
 */
export function missingImageOf(event: Document): (() => EngineError) | undefined {
  const marker = markerOf(event);
  return marker && (() => marker.error());
}

function markerOf(event: Document): MissingImage | undefined {
  return (event as { [MISSING_IMAGE]?: MissingImage })[MISSING_IMAGE];
}

/**
 * Turns committed oplog entries into change events with MongoDB's shapes, for one stream:
 * `{_id: <resume token>, operationType, clusterTime, [collectionUUID], wallTime, [fullDocument],
 * ns, [to], [documentKey], [operationDescription], [updateDescription],
 * [fullDocumentBeforeChange]}`. Pre- and post-images come from the entry, and only when the
 * collection had `changeStreamPreAndPostImages` enabled at the time of the write (`imagesEnabled`,
 * as mongod records them only then); `updateLookup` reads the collection's current document when
 * the event is produced.
 *
 * @example
 * const builder = new ChangeEventBuilder(storage, spec, {level: "collection", db: "app", coll: "todos"});
 * builder.eventsFor(entry, previous, next).events; // [{_id, operationType: "insert", ...}]
 */
export class ChangeEventBuilder {
  constructor(
    private readonly storage: Storage,
    private readonly spec: ChangeStreamSpec,
    private readonly scope: ChangeStreamScope,
  ) {}

  /**
   * The events of `entry`. `previous`/`next` are its neighbours in the oplog: a rename with
   * `dropTarget` is logged after the drop of its target, which MongoDB reports only as part of
   * the rename (`operationDescription.dropTarget`), never as a drop event.
   */
  eventsFor(entry: OplogEntry, previous: OplogEntry | undefined, next: OplogEntry | undefined): EntryEvents {
    if (entry.op !== "c") return this.crudEvents(entry);
    const db = entry.ns.slice(0, entry.ns.length - ".$cmd".length);
    const o = entry.o;
    if (typeof o["drop"] === "string") {
      if (isDropTargetOf(entry, db, next)) return NONE;
      if (!watchesCollection(this.scope, db, o["drop"])) return NONE;
      // A view's drop (no UUID) is a view-definition event: mongod shows those only as expanded events.
      if (entry.ui === undefined && !this.spec.showExpandedEvents) return NONE;
      return this.withInvalidate(entry, this.base(entry, "drop", { ns: { db, coll: o["drop"] } }), this.scope.level === "collection");
    }
    if (typeof o["renameCollection"] === "string" && typeof o["to"] === "string") {
      const from = splitNamespace(o["renameCollection"]);
      const to = splitNamespace(o["to"]);
      if (!watchesCollection(this.scope, from.db, from.collection) && !watchesCollection(this.scope, to.db, to.collection)) return NONE;
      const fields: Document = { ns: { db: from.db, coll: from.collection }, to: { db: to.db, coll: to.collection } };
      if (this.spec.showExpandedEvents) {
        const dropped = previous && isDropTargetOf(previous, previous.ns.slice(0, previous.ns.length - ".$cmd".length), entry) ? previous.ui : undefined;
        fields["operationDescription"] = { to: { db: to.db, coll: to.collection }, ...(dropped ? { dropTarget: dropped } : {}) };
      }
      return this.withInvalidate(entry, this.base(entry, "rename", fields), this.scope.level === "collection");
    }
    if (o["dropDatabase"] !== undefined) {
      if (!watchesDatabaseDrop(this.scope, db)) return NONE;
      return this.withInvalidate(entry, this.base(entry, "dropDatabase", { ns: { db } }), this.scope.level === "database");
    }
    if (this.spec.showExpandedEvents) return this.expandedEvent(entry, db, o);
    return NONE;
  }

  /** The invalidate event that follows the invalidating `entry`. */
  invalidateEvent(entry: OplogEntry): Document {
    return {
      _id: encodeResumeToken({ kind: "invalidate", ts: entry.ts, txnOpIndex: 0 }),
      operationType: "invalidate",
      clusterTime: entry.ts,
      wallTime: entry.wall,
    };
  }

  /** True when `entry` (a drop, rename or dropDatabase) ends this stream. */
  invalidates(entry: OplogEntry, previous: OplogEntry | undefined, next: OplogEntry | undefined): boolean {
    return entry.op === "c" && this.eventsFor(entry, previous, next).invalidates;
  }

  private crudEvents(entry: OplogEntry): EntryEvents {
    const { db, collection: coll } = splitNamespace(entry.ns);
    if (!watchesCollection(this.scope, db, coll)) return NONE;
    const ns = { db, coll };
    switch (entry.op) {
      case "i":
        return one(this.base(entry, "insert", { fullDocument: entry.o, ns, documentKey: entry.o2 ?? { _id: entry.o["_id"] } }));
      case "d":
        return one(this.base(entry, "delete", { ns, documentKey: entry.o, ...this.beforeChange(entry) }));
      default: {
        const documentKey = entry.o2 ?? { _id: entry.o["_id"] };
        const description = entry.updateDescription;
        if (!description) {
          return one(this.base(entry, "replace", { fullDocument: entry.o, ns, documentKey, ...this.beforeChange(entry) }));
        }
        const updateDescription: Document = {
          updatedFields: description.updatedFields,
          removedFields: description.removedFields,
          truncatedArrays: description.truncatedArrays ?? [],
        };
        if (this.spec.showExpandedEvents) updateDescription["disambiguatedPaths"] = disambiguatedPaths(entry);
        const fields: Document = {};
        const fullDocument = this.postImage(entry, db, coll, documentKey);
        if (fullDocument instanceof MissingImage) fields["fullDocument"] = null;
        else if (fullDocument !== undefined) fields["fullDocument"] = fullDocument;
        Object.assign(fields, { ns, documentKey, updateDescription }, this.beforeChange(entry));
        // A missing post-image is reported before a missing pre-image, as mongod looks it up first.
        if (fullDocument instanceof MissingImage) Object.assign(fields, { [MISSING_IMAGE]: fullDocument });
        return one(this.base(entry, "update", fields));
      }
    }
  }

  private expandedEvent(entry: OplogEntry, db: string, o: Document): EntryEvents {
    const [field, operationType] = EXPANDED_COMMANDS.find(([name]) => typeof o[name] === "string") ?? [];
    if (!field || !operationType) return NONE;
    const coll = o[field] as string;
    if (!watchesCollection(this.scope, db, coll)) return NONE;
    const { [field]: _name, ...rest } = o;
    void _name;
    let operationDescription: Document = rest;
    if (field === "createIndexes") operationDescription = { indexes: [rest] };
    if (field === "dropIndexes") operationDescription = { indexes: [{ name: rest["index"] }] };
    return one(this.base(entry, operationType, { ns: { db, coll }, operationDescription }));
  }

  /** `_id`, `operationType`, `clusterTime`, `collectionUUID` (expanded events), `wallTime`, then `fields`. */
  private base(entry: OplogEntry, operationType: string, fields: Document): Document {
    const event: Document = {
      _id: encodeResumeToken({ kind: "event", ts: entry.ts, txnOpIndex: 0 }),
      operationType,
      clusterTime: entry.ts,
    };
    if (this.spec.showExpandedEvents && entry.ui !== undefined) event["collectionUUID"] = entry.ui;
    event["wallTime"] = entry.wall;
    if (fields["fullDocument"] !== undefined) event["fullDocument"] = fields["fullDocument"];
    for (const [name, value] of Object.entries(fields)) if (name !== "fullDocument") event[name] = value;
    const missing = markerOf(fields);
    if (missing) markMissingImage(event, missing);
    return event;
  }

  private withInvalidate(entry: OplogEntry, event: Document, invalidates: boolean): EntryEvents {
    return invalidates ? { events: [event, this.invalidateEvent(entry)], invalidates } : { events: [event], invalidates };
  }

  /** An update event's `fullDocument` per the stream's mode (`undefined`: no field). */
  private postImage(entry: OplogEntry, db: string, coll: string, documentKey: Document): Document | null | undefined | MissingImage {
    switch (this.spec.fullDocument) {
      case "default":
        return undefined;
      case "updateLookup": {
        const collection = this.storage.collection(db, coll);
        if (!collection || !sameUuid(collection.uuid, entry.ui)) return null;
        return collection.findById(documentKey["_id"])?.doc ?? null;
      }
      case "whenAvailable":
        return (entry.imagesEnabled && entry.postImage) || null;
      case "required":
        if (!entry.imagesEnabled || !entry.postImage) return new MissingImage("post", entry.ts);
        return entry.postImage;
    }
  }

  private beforeChange(entry: OplogEntry): Document {
    if (this.spec.fullDocumentBeforeChange === "off") return {};
    const preImage = entry.imagesEnabled ? entry.preImage : undefined;
    if (!preImage && this.spec.fullDocumentBeforeChange === "required") {
      return { fullDocumentBeforeChange: null, [MISSING_IMAGE]: new MissingImage("pre", entry.ts) };
    }
    return { fullDocumentBeforeChange: preImage ?? null };
  }
}

/** Expanded-event commands (showExpandedEvents): oplog field → operationType. */
const EXPANDED_COMMANDS: ReadonlyArray<readonly [string, string]> = [
  ["create", "create"],
  ["createIndexes", "createIndexes"],
  ["dropIndexes", "dropIndexes"],
  ["collMod", "modify"],
];

function one(event: Document): EntryEvents {
  return { events: [event], invalidates: false };
}

/** `drop` is the target drop that `next` (a rename with `dropTarget`) performed. */
function isDropTargetOf(drop: OplogEntry, db: string, next: OplogEntry | undefined): boolean {
  return (
    next !== undefined &&
    next.op === "c" &&
    next.o["dropTarget"] === true &&
    typeof next.o["renameCollection"] === "string" &&
    drop.op === "c" &&
    next.o["to"] === `${db}.${String(drop.o["drop"])}`
  );
}

function sameUuid(a: Binary, b: Binary | undefined): boolean {
  return b !== undefined && (a === b || Buffer.from(a.buffer).equals(Buffer.from(b.buffer)));
}

/**
 * `updateDescription.disambiguatedPaths` (expanded events): for each changed path with a numeric
 * field name, the path as an array (array indexes as numbers, field names as strings), so
 * `"a.0"` can be told apart as field `"0"` or element 0. Images say which it was.
 */
function disambiguatedPaths(entry: OplogEntry): Document {
  const out: Document = {};
  const description = entry.updateDescription;
  if (!description) return out;
  const paths: Array<[string, Document | undefined]> = [
    ...Object.keys(description.updatedFields).map((path): [string, Document | undefined] => [path, entry.postImage]),
    ...description.removedFields.map((path): [string, Document | undefined] => [path, entry.preImage]),
    ...(description.truncatedArrays ?? []).map(({ field }): [string, Document | undefined] => [field, entry.postImage]),
  ];
  for (const [path, image] of paths) {
    const parts = path.split(".");
    const resolved: Array<string | number> = [];
    let ambiguous = false;
    let current: unknown = image;
    for (const part of parts) {
      if (Array.isArray(current) && /^\d+$/.test(part)) {
        resolved.push(Number(part));
        current = current[Number(part)];
      } else {
        if (/^\d+$/.test(part)) ambiguous = true;
        resolved.push(part);
        current = typeof current === "object" && current !== null ? (current as Document)[part] : undefined;
      }
    }
    if (ambiguous) out[path] = resolved;
  }
  return out;
}

function markMissingImage(event: Document, missing: MissingImage): void {
  Object.defineProperty(event, MISSING_IMAGE, { value: missing, enumerable: false });
}
