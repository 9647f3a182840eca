/**
 * An in-memory B+tree: sorted items in leaves linked both ways, internal nodes holding separator
 * items. Items must be totally ordered by `compare` with no two items comparing equal (index
 * entries break ties on their record id), which makes every position exactly re-seekable.
 *
 * Deletion removes empty nodes but does not rebalance under-full ones: the tree stays correct and
 * O(log n) deep for the insert-heavy workloads of a development database, and the code stays small.
 *
 * Iterators survive concurrent modification: each remembers the last item it yielded and, when the
 * tree's `version` changed in between, re-seeks just past it. That is what lets a cursor keep an
 * index scan open across `getMore`s while other clients write.
 *
 * @example
 * const tree = new BPlusTree<number>((a, b) => a - b);
 * tree.insert(3); tree.insert(1);
 * [...tree.scan(tree.seek((n) => n < 2), "forward")]; // [3]
 */
export class BPlusTree<T> {
  private root: TreeNode<T>;
  private count = 0;
  /** Bumped by every structural change; iterators compare it to know when to re-seek. */
  version = 0;

  constructor(
    private readonly compare: (a: T, b: T) => number,
    private readonly maxItems = 64,
  ) {
    this.root = newLeaf<T>();
  }

  get size(): number {
    return this.count;
  }

  /** The leaf where `item` belongs, and the internal nodes (with child indexes) above it. */
  private descend(item: T): { path: Array<{ node: InternalNode<T>; index: number }>; node: LeafNode<T> } {
    const path: Array<{ node: InternalNode<T>; index: number }> = [];
    let node = this.root;
    while (!node.leaf) {
      const index = this.childIndexFor(node, item);
      path.push({ node, index });
      node = node.children[index]!;
    }
    return { path, node };
  }

  /** Inserts an item; returns false (and changes nothing) if an equal item is present. */
  insert(item: T): boolean {
    const { path, node } = this.descend(item);
    const position = lowerBoundIn(node.items, item, this.compare);
    if (position < node.items.length && this.compare(node.items[position]!, item) === 0) return false;
    node.items.splice(position, 0, item);
    this.count += 1;
    this.version += 1;
    if (node.items.length > this.maxItems) this.splitLeaf(node, path);
    return true;
  }

  /** Removes the item equal to `item`; returns whether it was present. */
  delete(item: T): boolean {
    const { path, node } = this.descend(item);
    const position = lowerBoundIn(node.items, item, this.compare);
    if (position >= node.items.length || this.compare(node.items[position]!, item) !== 0) return false;
    node.items.splice(position, 1);
    this.count -= 1;
    this.version += 1;
    if (node.items.length === 0 && path.length > 0) this.removeEmptyLeaf(node, path);
    return true;
  }

  /** The smallest item, if any. */
  first(): T | undefined {
    const position = this.seek(() => false);
    return position.leaf.items[position.index];
  }

  /**
   * Finds the position of the first item for which `isBefore` is false. `isBefore` must be
   * monotone over the sort order (true for a prefix of the items, then false).
   */
  seek(isBefore: (item: T) => boolean): TreePosition<T> {
    let node = this.root;
    while (!node.leaf) {
      // Separators are a prefix of "before" items then the rest; descend into the child whose
      // range starts with the last "before" separator. Stale separators (left by deletions)
      // still bound their children correctly, so the leaf walk below finds the item.
      let lo = 0;
      let hi = node.keys.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (isBefore(node.keys[mid]!)) lo = mid + 1;
        else hi = mid;
      }
      node = node.children[lo]!;
    }
    let leaf: LeafNode<T> | null = node;
    while (leaf) {
      const items = leaf.items;
      let lo = 0;
      let hi = items.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (isBefore(items[mid]!)) lo = mid + 1;
        else hi = mid;
      }
      if (lo < items.length) return { leaf, index: lo };
      if (!leaf.next) return { leaf, index: items.length };
      leaf = leaf.next;
    }
    throw new Error("unreachable");
  }

  /** Position just past the last item (for backward scans of the whole tree). */
  end(): TreePosition<T> {
    let node = this.root;
    while (!node.leaf) node = node.children[node.children.length - 1]!;
    return { leaf: node, index: node.items.length };
  }

  /**
   * Yields items from `start` in the given direction. A forward scan yields the item at `start`
   * first; a backward scan yields the item *before* `start` first, so `scan(seek(isAfterUpper),
   * "backward")` walks down from an upper bound.
   */
  *scan(start: TreePosition<T>, direction: "forward" | "backward"): Generator<T, void, undefined> {
    let leaf: LeafNode<T> | null = start.leaf;
    let index = direction === "forward" ? start.index : start.index - 1;
    let seenVersion = this.version;
    let last: T | undefined;
    for (;;) {
      if (this.version !== seenVersion && last !== undefined) {
        const resumeAfter = last;
        const position =
          direction === "forward"
            ? this.seek((item) => this.compare(item, resumeAfter) <= 0)
            : this.seek((item) => this.compare(item, resumeAfter) < 0);
        leaf = position.leaf;
        index = direction === "forward" ? position.index : position.index - 1;
        seenVersion = this.version;
      }
      if (direction === "forward") {
        while (leaf && index >= leaf.items.length) {
          leaf = leaf.next;
          index = 0;
        }
      } else {
        while (leaf && index < 0) {
          leaf = leaf.prev;
          index = leaf ? leaf.items.length - 1 : 0;
        }
      }
      if (!leaf) return;
      const item = leaf.items[index]!;
      last = item;
      index += direction === "forward" ? 1 : -1;
      yield item;
    }
  }

  /** Every item in order (tests and index rebuilds). */
  *values(): Generator<T, void, undefined> {
    yield* this.scan(this.seek(() => false), "forward");
  }

  private childIndexFor(node: InternalNode<T>, item: T): number {
    // Child i holds items >= keys[i-1] and < keys[i]: count separators <= item.
    let lo = 0;
    let hi = node.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(node.keys[mid]!, item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private splitLeaf(leaf: LeafNode<T>, path: Array<{ node: InternalNode<T>; index: number }>): void {
    // Appends in key order (ObjectId _ids) always hit the last leaf: split it unevenly so
    // sequential loads leave full leaves behind instead of half-empty ones.
    const appending = leaf.next === null;
    const at = appending ? leaf.items.length - 1 : leaf.items.length >>> 1;
    const right: LeafNode<T> = { leaf: true, items: leaf.items.splice(at), next: leaf.next, prev: leaf };
    if (leaf.next) leaf.next.prev = right;
    leaf.next = right;
    this.insertIntoParent(leaf, right.items[0]!, right, path);
  }

  private insertIntoParent(
    left: TreeNode<T>,
    separator: T,
    right: TreeNode<T>,
    path: Array<{ node: InternalNode<T>; index: number }>,
  ): void {
    const parentEntry = path.pop();
    if (!parentEntry) {
      this.root = { leaf: false, keys: [separator], children: [left, right] };
      return;
    }
    const { node: parent, index } = parentEntry;
    parent.keys.splice(index, 0, separator);
    parent.children.splice(index + 1, 0, right);
    if (parent.children.length > this.maxItems) {
      const appending = index + 1 === parent.children.length - 1;
      const mid = appending ? parent.keys.length - 1 : parent.keys.length >>> 1;
      const promoted = parent.keys[mid]!;
      const sibling: InternalNode<T> = {
        leaf: false,
        keys: parent.keys.splice(mid + 1),
        children: parent.children.splice(mid + 1),
      };
      parent.keys.length = mid;
      this.insertIntoParent(parent, promoted, sibling, path);
    }
  }

  private removeEmptyLeaf(leaf: LeafNode<T>, path: Array<{ node: InternalNode<T>; index: number }>): void {
    if (leaf.prev) leaf.prev.next = leaf.next;
    if (leaf.next) leaf.next.prev = leaf.prev;
    // Unlink the empty node, and any ancestor left without children, from its parent.
    while (path.length > 0) {
      const { node: parent, index } = path.pop()!;
      parent.children.splice(index, 1);
      parent.keys.splice(index === 0 ? 0 : index - 1, 1);
      if (parent.children.length > 0) break;
    }
    // Collapse a root left with a single child so lookups do not walk needless levels.
    while (!this.root.leaf && this.root.children.length === 1) this.root = this.root.children[0]!;
    if (!this.root.leaf && this.root.children.length === 0) this.root = newLeaf<T>();
  }
}

/** A place in the tree: an item index inside a leaf (may equal `items.length`: "past the end"). */
export interface TreePosition<T> {
  readonly leaf: LeafNode<T>;
  readonly index: number;
}

export interface LeafNode<T> {
  readonly leaf: true;
  items: T[];
  next: LeafNode<T> | null;
  prev: LeafNode<T> | null;
}

interface InternalNode<T> {
  readonly leaf: false;
  keys: T[];
  children: TreeNode<T>[];
}

type TreeNode<T> = LeafNode<T> | InternalNode<T>;

function newLeaf<T>(): LeafNode<T> {
  return { leaf: true, items: [], next: null, prev: null };
}

function lowerBoundIn<T>(items: T[], item: T, compare: (a: T, b: T) => number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(items[mid]!, item) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
