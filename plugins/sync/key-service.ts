import { randomBytes } from "node:crypto";
import type { SyncBookkeeping } from "./sync-bookkeeping.js";

/**
 * The user's key material for web clients' local encryption (SPEC §5.6): 32 random bytes,
 * created on first request, stored server-side (one record per user, unique `userId`) and
 * returned base64 on every later request. Two first requests at once both end with the stored one.
 *
 * @example
 * const keyMaterial = await keyMaterialFor(bookkeeping, user.id); // "q0N1..." (44 characters)
 */
export async function keyMaterialFor(bookkeeping: SyncBookkeeping, userId: string): Promise<string> {
  const fresh = randomBytes(32).toString("base64");
  try {
    const record = await bookkeeping.keys
      .findOneAndUpdate({ userId }, { $setOnInsert: { keyMaterial: fresh } }, { upsert: true, returnDocument: "after", lean: true })
      .exec();
    return (record as { keyMaterial: string }).keyMaterial;
  } catch (error) {
    // A concurrent first request inserted it: read what it stored.
    if ((error as { code?: unknown }).code !== 11000) throw error;
    const stored = await bookkeeping.keys.findOne({ userId }).lean().exec();
    if (!stored) throw error;
    return stored.keyMaterial;
  }
}
