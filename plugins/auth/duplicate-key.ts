/**
 * True for MongoDB's duplicate-key error (code 11000), however the driver wrapped it.
 *
 * @example
 * try { await User.create({ email }); } catch (error) { if (isDuplicateKey(error)) throw AuthErrors.EMAIL_TAKEN(); }
 */
export function isDuplicateKey(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === 11000;
}
