import { Timestamp } from "bson";
import type { Document } from "bson";
import { bsonTypeName } from "../query/index.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { decodeResumeToken } from "./resume-token.js";
import type { ResumeTokenData } from "./resume-token.js";

/** `fullDocument`: what update events carry as `fullDocument`. */
export type FullDocumentMode = "default" | "updateLookup" | "whenAvailable" | "required";
/** `fullDocumentBeforeChange`: whether update/replace/delete events carry the pre-image. */
export type FullDocumentBeforeChangeMode = "off" | "whenAvailable" | "required";

/** A parsed, validated `$changeStream` stage. */
export interface ChangeStreamSpec {
  readonly fullDocument: FullDocumentMode;
  readonly fullDocumentBeforeChange: FullDocumentBeforeChangeMode;
  readonly resumeAfter?: ResumeTokenData;
  readonly startAfter?: ResumeTokenData;
  readonly startAtOperationTime?: Timestamp;
  readonly allChangesForCluster: boolean;
  readonly showExpandedEvents: boolean;
}

const FULL_DOCUMENT_MODES: readonly FullDocumentMode[] = ["default", "updateLookup", "whenAvailable", "required"];
const BEFORE_CHANGE_MODES: readonly FullDocumentBeforeChangeMode[] = ["off", "whenAvailable", "required"];

/**
 * Options of the stage MongoDB 7.0 knows that change nothing here (no shards, migrations, system
 * collections or config database to show) — accepted as booleans and ignored.
 */
const INERT_FLAGS = new Set(["showMigrationEvents", "showSystemEvents", "allowToRunOnConfigDB", "allowToRunOnSystemNS", "matchCollectionUUIDForUpdateLookup"]);

/** Stages MongoDB allows after `$changeStream` (each maps one event to at most one document). */
const ALLOWED_STAGES = new Set(["$match", "$project", "$addFields", "$set", "$unset", "$replaceRoot", "$replaceWith", "$redact"]);

/** Every aggregation stage name MongoDB 7.0 knows: others in a change stream → 40324, as mongod. */
const KNOWN_STAGES = new Set([
  "$addFields", "$bucket", "$bucketAuto", "$changeStream", "$changeStreamSplitLargeEvent", "$collStats", "$count",
  "$currentOp", "$densify", "$documents", "$facet", "$fill", "$geoNear", "$graphLookup", "$group", "$indexStats",
  "$limit", "$listLocalSessions", "$listSampledQueries", "$listSearchIndexes", "$listSessions", "$lookup", "$match",
  "$merge", "$out", "$planCacheStats", "$project", "$redact", "$replaceRoot", "$replaceWith", "$sample", "$search",
  "$searchMeta", "$set", "$setWindowFields", "$shardedDataDistribution", "$skip", "$sort", "$sortByCount",
  "$unionWith", "$unset", "$unwind", "$vectorSearch",
]);

/**
 * Parses the `$changeStream` stage's argument with MongoDB's validation: unknown field → 40415,
 * wrong type → TypeMismatch (14), bad enum value → BadValue (2), `resumeAfter` with `startAfter`
 * → 50865, a token with `startAtOperationTime` → 40674, `resumeAfter` an invalidate token →
 * InvalidResumeToken (260).
 *
 * @example
 * parseChangeStreamSpec({fullDocument: "updateLookup", resumeAfter: change._id});
 */
export function parseChangeStreamSpec(value: unknown): ChangeStreamSpec {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new EngineError(50808, "$changeStream stage expects a document as argument");
  }
  const raw = value as Document;
  let fullDocument: FullDocumentMode = "default";
  let fullDocumentBeforeChange: FullDocumentBeforeChangeMode = "off";
  let resumeAfter: ResumeTokenData | undefined;
  let startAfter: ResumeTokenData | undefined;
  let startAtOperationTime: Timestamp | undefined;
  let allChangesForCluster = false;
  let showExpandedEvents = false;
  for (const [field, fieldValue] of Object.entries(raw)) {
    // Drivers serialize an unset option as null.
    if (fieldValue === undefined || fieldValue === null) continue;
    switch (field) {
      case "fullDocument":
        fullDocument = enumField(field, fieldValue, FULL_DOCUMENT_MODES);
        break;
      case "fullDocumentBeforeChange":
        fullDocumentBeforeChange = enumField(field, fieldValue, BEFORE_CHANGE_MODES);
        break;
      case "resumeAfter":
        resumeAfter = decodeResumeToken(fieldValue, field);
        break;
      case "startAfter":
        startAfter = decodeResumeToken(fieldValue, field);
        break;
      case "startAtOperationTime":
        if (!(fieldValue instanceof Timestamp)) throw wrongType(field, fieldValue, "timestamp");
        startAtOperationTime = fieldValue;
        break;
      case "allChangesForCluster":
        allChangesForCluster = boolField(field, fieldValue);
        break;
      case "showExpandedEvents":
        showExpandedEvents = boolField(field, fieldValue);
        break;
      case "showRawUpdateDescription":
        if (boolField(field, fieldValue)) {
          throw new EngineError(ErrorCodes.NotImplemented, "showRawUpdateDescription is not supported by the embedded engine");
        }
        break;
      default:
        if (!INERT_FLAGS.has(field)) throw new EngineError(40415, `BSON field '$changeStream.${field}' is an unknown field.`);
        boolField(field, fieldValue);
    }
  }
  if (resumeAfter && startAfter) {
    throw new EngineError(50865, "Do not specify both 'resumeAfter' and 'startAfter' in a $changeStream stage");
  }
  if (startAtOperationTime && (resumeAfter || startAfter)) {
    throw new EngineError(40674, "Only one type of resume option is allowed, but multiple were found");
  }
  if (resumeAfter?.kind === "invalidate") {
    throw new EngineError(
      ErrorCodes.InvalidResumeToken,
      "Attempting to resume a change stream using 'resumeAfter' is not allowed from an invalidate notification",
    );
  }
  return {
    fullDocument,
    fullDocumentBeforeChange,
    ...(resumeAfter ? { resumeAfter } : {}),
    ...(startAfter ? { startAfter } : {}),
    ...(startAtOperationTime ? { startAtOperationTime } : {}),
    allChangesForCluster,
    showExpandedEvents,
  };
}

/**
 * Checks the stages after `$changeStream`: only those MongoDB allows in a change stream
 * (IllegalOperation 20 otherwise; an unknown stage name → 40324; a second `$changeStream` → 40602).
 *
 * @example
 * assertChangeStreamStages([{$match: {operationType: "insert"}}]); // ok
 * assertChangeStreamStages([{$group: {_id: null}}]);               // throws code 20
 */
export function assertChangeStreamStages(stages: readonly Document[]): void {
  for (const stage of stages) {
    const name = Object.keys(stage)[0] ?? "";
    if (name === "$changeStream") throw new EngineError(40602, "$changeStream is only valid as the first stage in a pipeline");
    if (name === "$changeStreamSplitLargeEvent") {
      throw new EngineError(ErrorCodes.NotImplemented, "$changeStreamSplitLargeEvent is not supported by the embedded engine");
    }
    if (!KNOWN_STAGES.has(name)) throw new EngineError(40324, `Unrecognized pipeline stage name: '${name}'`);
    if (!ALLOWED_STAGES.has(name)) throw new EngineError(ErrorCodes.IllegalOperation, `${name} is not permitted in a $changeStream pipeline`);
  }
}

function enumField<T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== "string") throw wrongType(field, value, "string");
  if (!(allowed as readonly string[]).includes(value)) {
    throw new EngineError(ErrorCodes.BadValue, `Enumeration value '${value}' for field '$changeStream.${field}' is not a valid value.`);
  }
  return value as T;
}

function boolField(field: string, value: unknown): boolean {
  if (typeof value !== "boolean") throw wrongType(field, value, "bool");
  return value;
}

function wrongType(field: string, value: unknown, expected: string): EngineError {
  return new EngineError(
    ErrorCodes.TypeMismatch,
    `BSON field '$changeStream.${field}' is the wrong type '${bsonTypeName(value)}', expected type '${expected}'`,
  );
}
