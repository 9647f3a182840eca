import { bsonIdentical } from "./bson-order.js";
import { isDocument } from "./document-path.js";
import type { Document } from "./types.js";

/**
 * What an update changed, in change-stream shape: dotted paths with their new values, removed
 * paths, and arrays that were shortened (`newSize` elements kept; changed elements below it are
 * listed in `updatedFields` as `"arr.<i>"`).
 *
 * @example
 * const d: UpdateDescription = { updatedFields: { "a.b": 1 }, removedFields: ["c"], truncatedArrays: [] };
 */
export interface UpdateDescription {
  updatedFields: Record<string, unknown>;
  removedFields: string[];
  truncatedArrays: { field: string; newSize: number }[];
}

/**
 * Computes the update description between two versions of a document, the way the server's
 * oplog v2 delta describes it: recurse into embedded documents and arrays that exist on both
 * sides, report everything else at the shallowest changed path. Subtrees shared by reference (the
 * copy-on-write updater keeps untouched ones shared) are skipped without inspection.
 *
 * @example
 * describeUpdate({ a: 1, b: [1, 2, 3] }, { a: 2, b: [1, 2] });
 * // {updatedFields: {a: 2}, removedFields: [], truncatedArrays: [{field: "b", newSize: 2}]}
 */
export function describeUpdate(before: Document, after: Document): UpdateDescription {
  const out: UpdateDescription = { updatedFields: {}, removedFields: [], truncatedArrays: [] };
  diffDocs(before, after, "", out, false);
  return out;
}

/**
 * True when a description records no change at all.
 *
 * @example
 * isEmptyDescription({ updatedFields: {}, removedFields: [], truncatedArrays: [] }); // true
 */
export function isEmptyDescription(d: UpdateDescription): boolean {
  return d.removedFields.length === 0 && d.truncatedArrays.length === 0 && Object.keys(d.updatedFields).length === 0;
}

const has = (o: Document, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/**
 * Diffs two versions of a document into `out`. Returns false (recording nothing) when fields present
 * on both sides changed relative order, which a delta cannot express.
 */
function diffDocs(a: Document, b: Document, prefix: string, out: UpdateDescription, checkOrder: boolean): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (checkOrder && !sameRelativeOrder(a, b, ka, kb)) return false;
  for (const k of ka) if (!has(b, k)) out.removedFields.push(prefix + k);
  for (const k of kb) {
    const nv = b[k];
    if (!has(a, k)) {
      out.updatedFields[prefix + k] = nv;
      continue;
    }
    diffValues(a[k], nv, prefix + k, out);
  }
  return true;
}

function diffValues(ov: unknown, nv: unknown, path: string, out: UpdateDescription): void {
  if (ov === nv) return;
  if (isDocument(ov) && isDocument(nv)) {
    // Reordered fields cannot be expressed as a delta: report the whole sub-document.
    if (!diffDocs(ov, nv, path + ".", out, true) && !bsonIdentical(ov, nv)) out.updatedFields[path] = nv;
    return;
  }
  if (Array.isArray(ov) && Array.isArray(nv)) {
    if (nv.length < ov.length) out.truncatedArrays.push({ field: path, newSize: nv.length });
    for (let i = 0; i < nv.length; i++) {
      if (i >= ov.length) out.updatedFields[`${path}.${i}`] = nv[i];
      else diffValues(ov[i], nv[i], `${path}.${i}`, out);
    }
    return;
  }
  if (!bsonIdentical(ov, nv)) out.updatedFields[path] = nv;
}

/** Fields present on both sides appear in the same relative order. */
function sameRelativeOrder(a: Document, b: Document, ka: string[], kb: string[]): boolean {
  // Common case: b is a with fields appended (or identical).
  if (kb.length >= ka.length) {
    let i = 0;
    while (i < ka.length && ka[i] === kb[i]) i++;
    if (i === ka.length) return true;
  }
  let j = 0;
  for (const k of ka) {
    if (!has(b, k)) continue;
    while (j < kb.length && !has(a, kb[j]!)) j++;
    if (kb[j] !== k) return false;
    j++;
  }
  return true;
}
