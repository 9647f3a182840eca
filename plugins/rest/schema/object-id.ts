import mongoose from "mongoose";

const OBJECT_ID = /^[0-9a-fA-F]{24}$/;

/**
 * True only for a string of exactly 24 hexadecimal characters (or an ObjectId instance). Unlike
 * mongoose's `isValidObjectId`, 12-character strings and numbers are *not* ids, so a path
 * segment like `/todos/hello-world!` is never cast into one.
 *
 * @example
 * isValidObjectId("65f1c0ffee00000000000001"); // true
 * isValidObjectId("hello-world!");             // false (12 chars, but not hex)
 */
export function isValidObjectId(value: unknown): boolean {
  if (typeof value === "string") return OBJECT_ID.test(value);
  return value instanceof mongoose.Types.ObjectId;
}
