import { bsonTypeCode } from "./bson-type.js";
import { isDocument } from "./document-path.js";

/**
 * Renders a BSON value roughly the way the server prints values in error messages
 * (`{ a: 5 }`, `[ 1, 2 ]`, `"x"`, `ObjectId('...')`). Long outputs are truncated.
 *
 * @example
 * formatBson({ a: [1, "x"] }); // '{ a: [ 1, "x" ] }'
 */
export function formatBson(v: unknown, max = 200): string {
  const s = render(v, 0);
  return s.length > max ? s.slice(0, max) + "..." : s;
}

function render(v: unknown, depth: number): string {
  if (depth > 6) return "...";
  switch (bsonTypeCode(v)) {
    case 0:
      return "undefined";
    case 10:
      return "null";
    case 2:
      return JSON.stringify(v);
    case 14:
      return JSON.stringify(String((v as { value: unknown }).value));
    case 4:
      return (v as unknown[]).length === 0 ? "[]" : `[ ${(v as unknown[]).map((e) => render(e, depth + 1)).join(", ")} ]`;
    case 3: {
      if (!isDocument(v)) return String(v);
      const keys = Object.keys(v);
      return keys.length === 0 ? "{}" : `{ ${keys.map((k) => `${k}: ${render(v[k], depth + 1)}`).join(", ")} }`;
    }
    case 7:
      return `ObjectId('${String(v)}')`;
    case 9:
      return `new Date(${(v as Date).getTime()})`;
    case 18:
      return `${String(v)}`;
    case 19:
      return `Decimal128("${String(v)}")`;
    case 1:
    case 16:
      return String(typeof v === "number" ? v : (v as { value: number }).value);
    default:
      return String(v);
  }
}
