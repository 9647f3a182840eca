import type { SyncScope } from "../../contracts/model-registry.js";
import type { StreamRule } from "./stream-key.js";
import { sameScope } from "./stream-key.js";
import { SyncErrors } from "./errors.js";

/** What the schema plugin needs at write time: the collection's name and how it streams. */
export interface SyncBinding {
  readonly collection: string;
  readonly scope: SyncScope;
  readonly rule: StreamRule;
}

const BINDING = Symbol.for("svc.sync.binding");

interface BindingHolder {
  [BINDING]?: { binding: SyncBinding; holders: number };
}

/**
 * Attaches a synced model's stream rule to the model object itself (state of that model, not a
 * module registry), for the schema plugin's save hook. Several apps in one process may serve the
 * same model if they stream it the same way; the returned function releases this app's hold.
 *
 * @example
 * const release = bindSyncedModel(Todo, { collection: "todos", scope, rule });
 * await stopApp(); release();
 */
export function bindSyncedModel(model: { readonly modelName: string }, binding: SyncBinding): () => void {
  const holder = model as unknown as BindingHolder;
  const current = holder[BINDING];
  if (current && !sameScope(current.binding.scope, binding.scope)) throw SyncErrors.SCOPE_CONFLICT(model.modelName);
  if (current) current.holders++;
  else holder[BINDING] = { binding, holders: 1 };
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const held = holder[BINDING];
    if (held && --held.holders === 0) delete holder[BINDING];
  };
}

/** The binding of a model, if a started sync plugin serves it. */
export function syncBindingOf(model: unknown): SyncBinding | undefined {
  return (model as BindingHolder | undefined)?.[BINDING]?.binding;
}
