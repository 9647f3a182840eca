import type { RequestUser } from "../../contracts/request-user.js";
import type { SyncScope } from "../../contracts/model-registry.js";

/** The kind of a sync scope, as the OpenAPI extension and the docs name it. */
export type SyncScopeKind = "owner" | "tenant" | "broadcast" | "custom";

/**
 * A scope resolved for one model: how to find a document's stream and which streams a user is
 * in. Pure: no I/O; tenant and custom memberships come from the app's `getUserScopes`.
 */
export interface StreamRule {
  readonly kind: SyncScopeKind;
  /** The field that decides the stream (owner and tenant scopes). */
  readonly field?: string;
  /** The document's stream, or undefined when the deciding field is empty. */
  streamOf(doc: Readonly<Record<string, unknown>>): string | undefined;
  /** The streams of this collection a user belongs to, given the user's scope keys. */
  memberStreams(user: RequestUser, scopeKeys: readonly string[]): string[];
}

/**
 * Builds the stream rule of a synced collection (SPEC §2.8): `<collection>|owner:<id>`,
 * `<collection>|tenant:<value>`, `<collection>|all`, or `<collection>|<custom(doc)>`.
 * Owner streams belong to the user whose id is in the owner field; tenant and custom streams
 * to the users whose `getUserScopes(user)` lists the part after `|` (`tenant:acme`, `team-7`).
 *
 * @example
 * const rule = streamRule("todos", { type: "owner" }, "ownerId");
 * rule.streamOf({ ownerId: "u1" });        // "todos|owner:u1"
 * rule.memberStreams({ id: "u1", _id: "u1" }, []); // ["todos|owner:u1"]
 */
export function streamRule(collection: string, scope: SyncScope, ownerField: string): StreamRule {
  const prefix = `${collection}|`;
  if (typeof scope === "function") {
    return {
      kind: "custom",
      streamOf: (doc) => {
        const key = scope(doc);
        return typeof key === "string" && key.length > 0 ? prefix + key : undefined;
      },
      memberStreams: (_user, scopeKeys) => scopeKeys.map((key) => prefix + key),
    };
  }
  if (scope.type === "broadcast") {
    return { kind: "broadcast", streamOf: () => `${prefix}all`, memberStreams: () => [`${prefix}all`] };
  }
  if (scope.type === "owner") {
    const field = scope.field ?? ownerField;
    return {
      kind: "owner",
      field,
      streamOf: (doc) => keyed(prefix, "owner", doc[field]),
      memberStreams: (user) => [`${prefix}owner:${user.id}`],
    };
  }
  const field = scope.field;
  return {
    kind: "tenant",
    field,
    streamOf: (doc) => keyed(prefix, "tenant", doc[field]),
    memberStreams: (_user, scopeKeys) => scopeKeys.filter((key) => key.startsWith("tenant:")).map((key) => prefix + key),
  };
}

/** `<prefix><kind>:<value>` for a present value (ObjectIds and numbers by their string form). */
function keyed(prefix: string, kind: string, value: unknown): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  return `${prefix}${kind}:${String(value)}`;
}

/**
 * Whether two scope configurations stream a model the same way (two routers of one model must agree).
 *
 * @example
 * sameScope({ type: "owner" }, { type: "owner" }); // true
 */
export function sameScope(a: SyncScope, b: SyncScope): boolean {
  if (typeof a === "function" || typeof b === "function") return a === b;
  return a.type === b.type && (a as { field?: string }).field === (b as { field?: string }).field;
}
