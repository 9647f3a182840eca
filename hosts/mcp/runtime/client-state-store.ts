/** One browser client's latest report. */
export interface ClientStateReport {
  readonly clientId: string;
  /** The page the client was on. */
  readonly url?: string;
  readonly receivedAt: string;
  readonly state: unknown;
}

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * The latest state each browser client posted, bounded: the client that reported least recently
 * is dropped when a new one arrives over `maxClients`. Only the newest report per client is kept.
 *
 * @example
 * const store = new ClientStateStore(20);
 * store.accept({ clientId: "tab-1", state: { todos: [] } }); // undefined: accepted
 */
export class ClientStateStore {
  private readonly reports = new Map<string, ClientStateReport>();

  constructor(private readonly maxClients: number) {}

  /** Stores a posted body; answers what is wrong with it instead when it is not a report. */
  accept(body: unknown): string | undefined {
    if (body === null || typeof body !== "object" || Array.isArray(body)) return "the body must be {clientId, state, url?}";
    const { clientId, state, url } = body as Record<string, unknown>;
    if (typeof clientId !== "string" || !CLIENT_ID.test(clientId)) return "clientId must be 1 to 100 letters, digits or ._:-";
    if (state === undefined) return "state is required";
    if (url !== undefined && (typeof url !== "string" || url.length > 2000)) return "url must be a string of at most 2000 characters";
    // Re-inserting moves the client to the end: the map's first key is the least recent reporter.
    this.reports.delete(clientId);
    this.reports.set(clientId, { clientId, url, receivedAt: new Date().toISOString(), state });
    while (this.reports.size > this.maxClients) this.reports.delete(this.reports.keys().next().value!);
    return undefined;
  }

  /** The reports, newest first, or the one of `clientId`. */
  list(clientId?: string): ClientStateReport[] {
    if (clientId !== undefined) {
      const report = this.reports.get(clientId);
      return report ? [report] : [];
    }
    return [...this.reports.values()].reverse();
  }
}
