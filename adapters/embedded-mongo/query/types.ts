/**
 * Shared shapes for the query library. Values inside a `Document` are what
 * `bson.deserialize(buf, {promoteValues: false, bsonRegExp: true})` produces (Int32, Double, Long,
 * Decimal128, ObjectId, Binary, Timestamp, BSONRegExp, MinKey, MaxKey, Code, BSONSymbol, strings,
 * booleans, null, Date, arrays, plain objects), plus plain JS numbers when the engine builds values.
 *
 * @example
 * const doc: Document = { _id: new ObjectId(), n: new Int32(5) };
 */
export type Document = Record<string, unknown>;

/**
 * A collation as MongoDB accepts it (`{locale, strength, ...}`). Only the fields the query library
 * interprets are listed; the rest are accepted and ignored.
 *
 * @example
 * const ci: Collation = { locale: "en", strength: 2 };
 */
export interface Collation {
  readonly locale: string;
  readonly strength?: number;
  readonly caseLevel?: boolean;
  readonly caseFirst?: "upper" | "lower" | "off";
  readonly numericOrdering?: boolean;
  readonly [key: string]: unknown;
}
