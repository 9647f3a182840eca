// Who sends a request: anonymous, one of two users, the admin — or someone holding a forged,
// tampered, expired or malformed credential. Forgeries are built from the real tokens the users
// got at sign-in, so they differ from a valid token in exactly the way they name.
import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { SignJWT } from "jose";

/** The callers the harness signs in as. */
export type ActorName = "user" | "other user" | "admin";

/** A caller with a real sign-in. */
export interface Actor {
  readonly name: ActorName;
  readonly id: string;
  readonly token: string;
}

const FORGERIES = {
  "bearer-x": "Bearer x",
  "bearer-empty": "Bearer with no token",
  "bearer-oversized": "a 9000-character bearer token",
  basic: "Basic credentials",
  "other-scheme": "the real token under another scheme (Token …)",
  "three-dots": "Bearer a.b.c",
  garbage: "random base64url segments",
  "no-signature": "the real token without its signature",
  "flipped-signature": "the real token with a changed signature",
  "tampered-subject": "the real token with its subject changed to another user's id",
  "tampered-admin": "the real token with admin: true added to its payload",
  "alg-none": "alg none, subject another user's id",
  "other-key": "HS256 signed with another key, subject another user's id",
  "alg-confusion": "an RS256 header signed with the HMAC secret",
  expired: "signed with the app's key, expired",
  "not-yet-valid": "signed with the app's key, nbf in the future",
  "wrong-issuer": "signed with the app's key, another issuer",
  "refresh-use": "signed with the app's key, token_use refresh",
  "missing-user": "signed with the app's key, subject an id of no user",
  "operator-subject": 'signed with the app\'s key, subject "$where"',
  "object-subject": 'signed with the app\'s key, subject {"$gt": ""}',
  "comma-joined": "two tokens joined by a comma",
} as const;
export type ForgeryName = keyof typeof FORGERIES;
/** Every forgery, for the sweep that sends each once. */
export const FORGERY_NAMES = Object.keys(FORGERIES) as ForgeryName[];

/** Who a request claims to be. */
export type CredentialPlan =
  | { readonly kind: "anonymous" }
  | { readonly kind: "actor"; readonly actor: ActorName; readonly scheme: "Bearer" | "bearer" }
  | { readonly kind: "forged"; readonly forgery: ForgeryName; readonly base: ActorName };

/** What the credential becomes on the wire. */
export interface RenderedCredential {
  readonly headers: Record<string, string>;
  readonly actor: string;
  /** Whose records count as "own": the actor's, anonymous callers' (a forgery borrows its base's). */
  readonly owner?: ActorName | "anonymous";
  /** True when the app must treat the request as unauthenticated. */
  readonly forged: boolean;
}

/**
 * Credential plans: mostly the real actors (their records are what ids point at), often a forgery.
 *
 * @example
 * fc.sample(credentialPlans(true), 3);
 */
export function credentialPlans(hasActors: boolean): fc.Arbitrary<CredentialPlan> {
  const actor = fc.constantFrom<ActorName>("user", "other user", "admin");
  const forged = fc.record({ kind: fc.constant("forged" as const), forgery: fc.constantFrom(...FORGERY_NAMES), base: actor });
  if (!hasActors) return fc.oneof(fc.constant({ kind: "anonymous" as const }), forged);
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant({ kind: "anonymous" as const }) },
    { weight: 8, arbitrary: fc.record({ kind: fc.constant("actor" as const), actor, scheme: fc.constantFrom<"Bearer" | "bearer">("Bearer", "Bearer", "Bearer", "bearer") }) },
    { weight: 4, arbitrary: forged },
  );
}

/** What forging needs: the app's signing key (for tokens a leaked key would make) and the actors. */
export interface ForgeryContext {
  readonly actors: ReadonlyMap<ActorName, Actor>;
  readonly tokenSecret: string;
}

/**
 * The Authorization header for a plan. Without actors (an app with no users), forgeries are made
 * over a synthetic token with a random subject.
 */
export async function renderCredential(plan: CredentialPlan, context: ForgeryContext): Promise<RenderedCredential> {
  if (plan.kind === "anonymous") return { headers: {}, actor: "anonymous", owner: "anonymous", forged: false };
  if (plan.kind === "actor") {
    const actor = context.actors.get(plan.actor);
    if (!actor) return { headers: {}, actor: "anonymous", owner: "anonymous", forged: false };
    return { headers: { authorization: `${plan.scheme} ${actor.token}` }, actor: plan.actor, owner: plan.actor, forged: false };
  }
  const base = context.actors.get(plan.base);
  // Whom the forgery claims to be: the admin, or (when forging from the admin's own token, which
  // would otherwise come out unchanged) the user.
  const victim = context.actors.get(plan.base === "admin" ? "user" : "admin");
  const token = base?.token ?? (await syntheticToken(context.tokenSecret));
  const authorization = await forge(plan.forgery, token, victim?.id ?? randomBytes(12).toString("hex"), context.tokenSecret);
  return { headers: { authorization }, actor: `forged: ${FORGERIES[plan.forgery]}`, owner: base ? plan.base : undefined, forged: true };
}

async function forge(forgery: ForgeryName, token: string, victimId: string, secret: string): Promise<string> {
  const [header = "", payload = "", signature = ""] = token.split(".");
  const claims = decodeSegment(payload);
  const protectedHeader = decodeSegment(header);
  const now = Math.floor(Date.now() / 1000);
  const signWith = (changes: Record<string, unknown>, key: string = secret, headerChanges: Record<string, unknown> = {}) =>
    new SignJWT({ ...claims, ...changes })
      .setProtectedHeader({ ...protectedHeader, alg: "HS256", ...headerChanges } as { alg: string })
      .sign(new TextEncoder().encode(key));
  switch (forgery) {
    case "bearer-x":
      return "Bearer x";
    case "bearer-empty":
      return "Bearer ";
    case "bearer-oversized":
      return `Bearer ${"a".repeat(9_000)}`;
    case "basic":
      return `Basic ${Buffer.from("admin:admin").toString("base64")}`;
    case "other-scheme":
      return `Token ${token}`;
    case "three-dots":
      return "Bearer a.b.c";
    case "garbage":
      return `Bearer ${[12, 40, 32].map((size) => randomBytes(size).toString("base64url")).join(".")}`;
    case "no-signature":
      return `Bearer ${header}.${payload}.`;
    case "flipped-signature":
      return `Bearer ${header}.${payload}.${signature.startsWith("A") ? `B${signature.slice(1)}` : `A${signature.slice(1)}`}`;
    case "tampered-subject":
      return `Bearer ${header}.${encodeSegment({ ...claims, sub: victimId })}.${signature}`;
    case "tampered-admin":
      // A claim the real payload lacks, so the payload changes even when admin is already true.
      return `Bearer ${header}.${encodeSegment({ ...claims, admin: true, role: "admin" })}.${signature}`;
    case "alg-none":
      return `Bearer ${encodeSegment({ ...protectedHeader, alg: "none" })}.${encodeSegment({ ...claims, sub: victimId })}.`;
    case "other-key":
      return `Bearer ${await signWith({ sub: victimId }, randomBytes(32).toString("base64url"))}`;
    case "alg-confusion":
      return `Bearer ${encodeSegment({ ...protectedHeader, alg: "RS256" })}.${payload}.${(await signWith({})).split(".")[2]}`;
    case "expired":
      return `Bearer ${await signWith({ iat: now - 7_200, exp: now - 3_600 })}`;
    case "not-yet-valid":
      return `Bearer ${await signWith({ nbf: now + 3_600 })}`;
    case "wrong-issuer":
      return `Bearer ${await signWith({ iss: "someone-else" })}`;
    case "refresh-use":
      return `Bearer ${await signWith({ token_use: "refresh" }, secret, { typ: "rt+jwt" })}`;
    case "missing-user":
      return `Bearer ${await signWith({ sub: randomBytes(12).toString("hex") })}`;
    case "operator-subject":
      return `Bearer ${await signWith({ sub: "$where" })}`;
    case "object-subject":
      return `Bearer ${await signWith({ sub: { $gt: "" } })}`;
    case "comma-joined":
      return `Bearer ${token}, Bearer ${token}`;
  }
}

/** A token shaped like the framework's, for apps without users to sign in. */
async function syntheticToken(secret: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ token_use: "access" })
    .setProtectedHeader({ alg: "HS256", typ: "at+jwt" })
    .setSubject(randomBytes(12).toString("hex"))
    .setIssuer("svc-test")
    .setIssuedAt(now)
    .setExpirationTime(now + 900)
    .sign(new TextEncoder().encode(secret));
}

function decodeSegment(segment: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, "base64url").toString("utf8"));
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function encodeSegment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}
