// One hostile request per plan: who sends it, to which path with which ids, which query, body and
// headers. Plans are plain data, so fast-check prints and shrinks them; `buildRequest` turns a
// plan into bytes when it is sent, resolving ids against the records seen by then.
import { randomBytes } from "node:crypto";
import fc from "fast-check";
import type { FuzzRequest } from "./fuzz-request.js";
import { bodyPlans, renderBody, strayBodyPlans, sweepBase, sweepPlans, type BodyPlan } from "./hostile-body.js";
import { credentialPlans, FORGERY_NAMES, renderCredential, type CredentialPlan, type ForgeryContext } from "./hostile-credentials.js";
import { headerPlans, type HeaderPlan } from "./hostile-headers.js";
import { NOT_IDS, PATH_VARIANTS, pathPlans, renderPath, type PathPlan } from "./hostile-path.js";
import { hostileQueryPairs, queryPlans, type QueryPair } from "./hostile-query.js";
import type { FuzzOperation } from "./openapi-operations.js";
import type { AcceptedBodies } from "./accepted-bodies.js";
import { collectionOf, type RecordIds } from "./record-ids.js";

export interface RequestPlan {
  readonly credential: CredentialPlan;
  readonly path: PathPlan;
  readonly query: readonly QueryPair[];
  readonly body?: BodyPlan;
  readonly headers: readonly HeaderPlan[];
  /** Another method than the documented one, on the same path. */
  readonly method?: string;
}

/** What building a request needs besides its plan. */
export interface BuildContext extends ForgeryContext {
  readonly ids: RecordIds;
  readonly accepted: AcceptedBodies;
  readonly bodyLimit: number;
  readonly refuseOperatorKeys: boolean;
  /** Every documented method per path template, to know which other methods are undocumented. */
  readonly documentedMethods: ReadonlyMap<string, ReadonlySet<string>>;
}

const OTHER_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * Random plans for one operation.
 *
 * @example
 * fc.sample(requestPlans(createTodo, { hasActors: true, bodyLimit: 1_048_576 }), 1);
 */
export function requestPlans(operation: FuzzOperation, options: { hasActors: boolean; bodyLimit: number; hasAccepted: boolean }): fc.Arbitrary<RequestPlan> {
  const body = operation.body
    ? bodyPlans(operation.body, options.bodyLimit, options.hasAccepted)
    : fc.option(strayBodyPlans(options.bodyLimit), { nil: undefined, freq: 6 });
  return fc.record(
    {
      credential: credentialPlans(options.hasActors),
      path: pathPlans(operation),
      query: queryPlans(operation),
      body,
      headers: headerPlans(),
      method: fc.option(fc.constantFrom(...OTHER_METHODS.filter((method) => method !== operation.method)), { nil: undefined, freq: 12 }),
    },
    { requiredKeys: ["credential", "path", "query", "headers"] },
  );
}

/**
 * The deterministic plans every run sends first, so that no listed input depends on luck: the
 * body sweep (each property × each empty-ish, wrong-typed and hostile value; each hostile key in
 * each object), each hostile query pair alone, each id that is not an id and each path shape,
 * and each forged credential. Sent as the admin on the admin's own records where there are
 * users, so that a permission check does not stop the input before the code that must cope.
 *
 * @example
 * sweepRequestPlans(createTodo, 42, { hasActors: true, accepted: { title: "a" } }).length;
 */
export function sweepRequestPlans(operation: FuzzOperation, seed: number, options: { hasActors: boolean; accepted: unknown }): RequestPlan[] {
  const admin: CredentialPlan = options.hasActors ? { kind: "actor", actor: "admin", scheme: "Bearer" } : { kind: "anonymous" };
  const count = (operation.path.match(/\{[^}]+\}/g) ?? []).length;
  const ownIds: PathPlan = { ids: Array.from({ length: count }, () => ({ kind: "record" as const, whose: "own" as const, pick: 0 })) };
  // The body every other sweep carries: the accepted one, so that only the swept part is hostile.
  const body: BodyPlan | undefined = operation.body && { base: sweepBase(operation.body, seed, options.accepted), mutations: [], envelope: { contentType: "application/json", encoding: "none" } };
  const plain = { credential: admin, path: ownIds, query: [], body, headers: [] } satisfies RequestPlan;
  const plans: RequestPlan[] = [];
  if (operation.body) plans.push(...sweepPlans(operation.body, seed, options.accepted).map((swept) => ({ ...plain, body: swept })));
  plans.push(...hostileQueryPairs(operation).map((pair) => ({ ...plain, query: [pair] })));
  if (count > 0) {
    plans.push(...NOT_IDS.map((id) => ({ ...plain, path: { ids: ownIds.ids.map((own, index) => (index === count - 1 ? id : own)) } })));
    plans.push(...PATH_VARIANTS.map((variant) => ({ ...plain, path: { ...ownIds, variant } })));
  }
  plans.push(...FORGERY_NAMES.map((forgery): RequestPlan => ({ ...plain, credential: { kind: "forged", forgery, base: "user" } })));
  return plans;
}

/** The plan as bytes, with what it attacks and whether the contract says it must be refused. */
export async function buildRequest(operation: FuzzOperation, plan: RequestPlan, context: BuildContext): Promise<FuzzRequest> {
  const credential = await renderCredential(plan.credential, context);
  const attacks: string[] = [];
  const refusals: string[] = [];
  const method = plan.method ?? operation.method;
  if (plan.method) {
    attacks.push(`method ${plan.method} instead of ${operation.method}`);
    const documented = context.documentedMethods.get(operation.path);
    if (plan.method !== "OPTIONS" && !documented?.has(plan.method)) refusals.push(`${plan.method} is not documented for ${operation.path}`);
  }
  // Another method (a CORS preflight, say) may be answered without a sign-in.
  if (!plan.method && operation.requiresAuth) {
    if (credential.forged) refusals.push("a forged credential on an operation that requires sign-in");
    if (plan.credential.kind === "anonymous") refusals.push("no credential on an operation that requires sign-in");
  }

  const collection = collectionOf(operation.path);
  const values = plan.path.ids.map((choice) => {
    if (choice.kind === "raw") {
      attacks.push(`path id: ${choice.label}`);
      return choice.raw;
    }
    if (choice.kind === "record") {
      const id = context.ids.choose(collection, credential.owner, choice.whose, choice.pick);
      if (id) {
        if (choice.whose !== "own") attacks.push(`the ${choice.whose === "other" ? "another caller's" : "admin's"} record`);
        // A client-chosen string id may hold anything the app accepted (a NUL, a space, a slash):
        // a real client percent-encodes it, as here; raw bytes in paths are the NOT_IDS attacks.
        return encodeURIComponent(id);
      }
    }
    attacks.push("an id of no record");
    return randomBytes(12).toString("hex");
  });
  let path = renderPath(operation.path, values, plan.path.variant);
  if (plan.path.variant) attacks.push(`path: ${plan.path.variant.label}`);
  if (plan.query.length > 0) path += `?${plan.query.map((pair) => pair.raw).join("&")}`;
  for (const pair of plan.query) {
    if (pair.label) attacks.push(`query: ${pair.label}`);
    // A refused query is only required where the operation reads it: its documented method.
    if (pair.mustRefuse && !plan.method) refusals.push(pair.mustRefuse);
  }

  const headers: Record<string, string> = { ...credential.headers };
  for (const header of plan.headers) {
    headers[header.name] = header.value;
    attacks.push(header.label);
  }
  let body: Buffer | undefined;
  if (plan.body) {
    const rendered = renderBody(plan.body, {
      takesJson: operation.body !== undefined && !plan.method,
      bodyLimit: context.bodyLimit,
      refuseOperatorKeys: context.refuseOperatorKeys,
      accepted: (pick) => context.accepted.choose(collectionOf(operation.path), pick),
    });
    body = rendered.bytes;
    Object.assign(headers, rendered.headers);
    attacks.push(...rendered.attacks.map((attack) => `body: ${attack}`));
    // Under another method the body may go unread (a CORS preflight is answered before parsing).
    if (rendered.mustRefuse && !plan.method) refusals.push(rendered.mustRefuse);
  }
  return { operation: operation.name, method, path, headers, body, actor: credential.actor, attacks, mustRefuse: refusals[0] };
}
