// The ids of records the run has seen, by collection path and by who created or read them: what
// "the caller's own record" and "another user's record" resolve to when a path is filled in.

/** Collection path (`/todos` for `/todos/{id}`) → actor → ids. */
export class RecordIds {
  private readonly byCollection = new Map<string, Map<string, string[]>>();

  /** Remembers every `id` in a 2xx answer's `data` (a record or a page of them). */
  harvest(collection: string, actor: string, body: unknown): void {
    const data = (body as { data?: unknown } | undefined)?.data;
    for (const record of Array.isArray(data) ? data : [data]) {
      const id = (record as { id?: unknown } | undefined)?.id;
      if (typeof id === "string") this.add(collection, actor, id);
    }
  }

  add(collection: string, actor: string, id: string): void {
    const actors = this.byCollection.get(collection) ?? new Map<string, string[]>();
    this.byCollection.set(collection, actors);
    const ids = actors.get(actor) ?? [];
    actors.set(actor, ids);
    if (!ids.includes(id)) ids.push(id);
  }

  /**
   * The `pick`-th id (modulo) of `whose` records: the caller's own, anyone else's, or the
   * admin's; undefined when there are none yet.
   */
  choose(collection: string, caller: string | undefined, whose: "own" | "other" | "admin's", pick: number): string | undefined {
    const actors = this.byCollection.get(collection);
    if (!actors) return undefined;
    const ids = [...actors.entries()]
      .filter(([actor]) => (whose === "own" ? actor === caller : whose === "admin's" ? actor === "admin" : actor !== caller))
      .flatMap(([, list]) => list);
    return ids.length === 0 ? undefined : ids[pick % ids.length];
  }
}

/**
 * The collection an operation's path belongs to: the path without its last `{param}` segment.
 *
 * @example
 * collectionOf("/todos/{id}"); // "/todos"
 */
export function collectionOf(template: string): string {
  return template.replace(/\/\{[^}]+\}$/, "") || "/";
}
