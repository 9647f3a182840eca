/**
 * The user-document field (hidden, `select: false`) listing sign-ins that ended one by one
 * (`POST /auth/logout`, `DELETE /auth/sign_ins/{id}`, a reused refresh token), each with the time
 * its last access token lapses at the latest. An access token carries its sign-in's id in claim
 * `sid`; one whose id is on the list is refused (`AUTH_TOKEN_REVOKED`) on the request after the
 * sign-in ended. The per-request user read already fetches the document, so the check costs no
 * query; an entry is pruned once no token of its sign-in can still be valid.
 *
 * @example
 * { signInVersion: 2, endedSignIns: [{ sid: "7c1e…", until: ISODate("2026-11-29T17:20:00Z") }] }
 */
export const ENDED_SIGN_INS = "endedSignIns";

/** The access-token claim naming the sign-in (refresh-token family) it belongs to (reserved). */
export const SIGN_IN_ID_CLAIM = "sid";

/**
 * The most entries kept. An account that ends more sign-ins than this within one access-token
 * lifetime has all of its sign-ins ended instead (the version bump), never too few.
 */
export const MAX_ENDED_SIGN_INS = 100;

/** One entry of the list. */
export interface EndedSignIn {
  readonly sid: string;
  readonly until: Date;
}

/** The sign-in ids a stored list names (anything malformed in it is ignored). */
export function endedSignInIds(value: unknown): ReadonlySet<string> {
  const ids = new Set<string>();
  if (!Array.isArray(value)) return ids;
  for (const entry of value) {
    const sid = (entry as { sid?: unknown } | null)?.sid;
    if (typeof sid === "string") ids.add(sid);
  }
  return ids;
}

/**
 * The update pipeline that adds `entry`, dropping entries whose tokens have all lapsed by `now`;
 * past `MAX_ENDED_SIGN_INS` it empties the list and bumps the sign-in version instead (every
 * sign-in ends). One atomic update, so concurrent sign-outs cannot lose each other's entries.
 */
export function endSignInPipeline(entry: EndedSignIn, now: Date, versionField: string): Record<string, unknown>[] {
  const list = `$${ENDED_SIGN_INS}`;
  const live = { $filter: { input: { $ifNull: [list, []] }, cond: { $gt: ["$$this.until", now] } } };
  const overflowing = { $gt: [{ $size: list }, MAX_ENDED_SIGN_INS] };
  return [
    { $set: { [ENDED_SIGN_INS]: { $concatArrays: [live, [{ sid: entry.sid, until: entry.until }]] } } },
    {
      $set: {
        [versionField]: { $cond: [overflowing, { $add: [{ $ifNull: [`$${versionField}`, 0] }, 1] }, `$${versionField}`] },
        [ENDED_SIGN_INS]: { $cond: [overflowing, [], list] },
      },
    },
  ];
}
