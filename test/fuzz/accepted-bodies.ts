// Bodies the app accepted, kept per resource: the best bases for mutations. A schema says what
// types a field has, not the app's own rules (a boolean flag's rules need `enabled: true`, weights
// sum to 100), so a hostile value planted in a body the app is known to accept reaches the code
// behind those rules, where a generated body would be refused before it.

const KEPT_PER_RESOURCE = 20;
/** Larger accepted bodies (a 900 KB description) would make every mutation of them as large. */
const LARGEST_KEPT = 8_192;

/** Accepted JSON bodies by resource (`/todos` for both `POST /todos` and `PATCH /todos/{id}`). */
export class AcceptedBodies {
  private readonly byResource = new Map<string, unknown[]>();

  /** Keeps an accepted object body (the first ones: seeds and early finds stay). */
  add(resource: string, body: unknown): void {
    if (typeof body !== "object" || body === null || Array.isArray(body)) return;
    const bodies = this.byResource.get(resource) ?? [];
    this.byResource.set(resource, bodies);
    const text = JSON.stringify(body);
    if (text.length > LARGEST_KEPT) return;
    if (bodies.length < KEPT_PER_RESOURCE && !bodies.some((kept) => JSON.stringify(kept) === text)) bodies.push(body);
  }

  /** The accepted bodies of a resource, richest (most properties, at any depth) first. */
  of(resource: string): readonly unknown[] {
    return [...(this.byResource.get(resource) ?? [])].sort((a, b) => propertyCount(b) - propertyCount(a));
  }

  /** The `pick`-th accepted body (modulo), or undefined when there is none. */
  choose(resource: string, pick: number): unknown {
    const bodies = this.byResource.get(resource) ?? [];
    return bodies.length === 0 ? undefined : bodies[pick % bodies.length];
  }
}

function propertyCount(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + propertyCount(item), 0);
  if (typeof value !== "object" || value === null) return 0;
  return Object.values(value).reduce((sum: number, item) => sum + 1 + propertyCount(item), 0);
}
