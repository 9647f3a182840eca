/**
 * Which open transaction has written which document, by namespace and `equalityKey(_id)`. A
 * document belongs to the first transaction that writes it until that transaction ends: a second
 * transaction writing it gets WriteConflict (first writer wins, as on mongod), and a commit by
 * anyone else that touches it dooms the owner (see `SessionRegistry`).
 *
 * @example
 * const locks = new WriteLocks<Transaction>();
 * locks.claim("app.todos", key, txn); // false when another transaction holds it
 * locks.releaseAll(txn);
 */
export class WriteLocks<Owner> {
  private readonly owners = new Map<string, Owner>();
  private readonly held = new Map<Owner, string[]>();

  /** Number of documents currently locked (cheap guard for the commit listener). */
  get size(): number {
    return this.owners.size;
  }

  owner(ns: string, idKey: string): Owner | undefined {
    return this.owners.get(lockKey(ns, idKey));
  }

  /** Takes the document for `owner`; false (and nothing changes) when someone else holds it. */
  claim(ns: string, idKey: string, owner: Owner): boolean {
    const key = lockKey(ns, idKey);
    const current = this.owners.get(key);
    if (current !== undefined) return current === owner;
    this.owners.set(key, owner);
    let keys = this.held.get(owner);
    if (!keys) {
      keys = [];
      this.held.set(owner, keys);
    }
    keys.push(key);
    return true;
  }

  /** Releases everything `owner` holds (its transaction committed or aborted). */
  releaseAll(owner: Owner): void {
    const keys = this.held.get(owner);
    if (!keys) return;
    this.held.delete(owner);
    for (const key of keys) this.owners.delete(key);
  }
}

function lockKey(ns: string, idKey: string): string {
  // NUL cannot appear in a namespace, so the pair is unambiguous.
  return `${ns}\u0000${idKey}`;
}
