/** One field seen in a sample: its dotted path (`tags.[]` for array elements), types and how often it was present. */
export interface InferredField {
  readonly path: string;
  /** BSON type names (`string`, `int`, `double`, `long`, `decimal`, `bool`, `date`, `objectId`, `null`, `object`, `array`, ...), most frequent first. */
  readonly types: readonly string[];
  /** Documents of the sample that have the field. */
  readonly present: number;
}

const MAX_DEPTH = 8;

/**
 * Infers the fields of a collection from sampled documents. Read the sample with the driver's
 * `promoteValues: false` so Int32, Double, Long and Decimal128 stay distinct.
 *
 * @example
 * inferFieldTypes([{ _id: new ObjectId(), tags: ["a"] }]);
 * // [{path: "_id", types: ["objectId"], present: 1}, {path: "tags", types: ["array"], ...}, {path: "tags.[]", types: ["string"], ...}]
 */
export function inferFieldTypes(documents: readonly Record<string, unknown>[]): InferredField[] {
  const seen = new Map<string, { types: Map<string, number>; documents: Set<number> }>();
  const visit = (value: unknown, path: string, documentIndex: number, depth: number): void => {
    let entry = seen.get(path);
    if (!entry) seen.set(path, (entry = { types: new Map(), documents: new Set() }));
    const type = bsonTypeName(value);
    entry.types.set(type, (entry.types.get(type) ?? 0) + 1);
    entry.documents.add(documentIndex);
    if (depth >= MAX_DEPTH) return;
    if (type === "array") for (const element of value as unknown[]) visit(element, `${path}.[]`, documentIndex, depth + 1);
    else if (type === "object") for (const [key, child] of Object.entries(value as object)) visit(child, `${path}.${key}`, documentIndex, depth + 1);
  };
  documents.forEach((document, index) => {
    for (const [key, value] of Object.entries(document)) visit(value, key, index, 1);
  });
  return [...seen.entries()].map(([path, entry]) => ({
    path,
    types: [...entry.types.entries()].sort((a, b) => b[1] - a[1]).map(([type]) => type),
    present: entry.documents.size,
  }));
}

/** The BSON type name of a driver value (`_bsontype` of bson classes, else the JavaScript type). */
export function bsonTypeName(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "array";
  if (value instanceof Date) return "date";
  if (value instanceof RegExp) return "regex";
  switch (typeof value) {
    case "string":
      return "string";
    case "boolean":
      return "bool";
    case "number":
      return Number.isInteger(value) ? "int" : "double";
    case "bigint":
      return "long";
    case "object": {
      const tag = (value as { _bsontype?: unknown })._bsontype;
      if (typeof tag !== "string") return "object";
      return BSON_NAMES[tag] ?? tag.charAt(0).toLowerCase() + tag.slice(1);
    }
    default:
      return typeof value;
  }
}

const BSON_NAMES: Record<string, string> = { ObjectId: "objectId", Int32: "int", Double: "double", Long: "long", Decimal128: "decimal", Binary: "binData", BSONRegExp: "regex", Timestamp: "timestamp", Code: "javascript", MinKey: "minKey", MaxKey: "maxKey", BSONSymbol: "symbol", DBRef: "dbPointer" };
