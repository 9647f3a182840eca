import { open, readdir } from "node:fs/promises";
import path from "node:path";

/**
 * The files of a data directory. Generations are consecutive integers: snapshot N holds the
 * state of every segment before N, and segment N holds what was committed after snapshot N was
 * taken. A directory always reads as "newest complete snapshot + the segments from its
 * generation on"; anything older is garbage left by an interrupted compaction.
 *
 * ```
 * svc-db.lock                 the lock (dbpath-lock.ts)
 * snapshot-0000000007.svcdb   complete snapshot (written as .tmp, fsynced, renamed)
 * journal-0000000007.svcj     journal segment appended since
 * ```
 */
export interface DataFiles {
  readonly snapshots: readonly number[];
  readonly segments: readonly number[];
  /** Snapshots whose writing never finished. */
  readonly temporary: readonly string[];
}

const SNAPSHOT = /^snapshot-(\d{10})\.svcdb$/;
const SEGMENT = /^journal-(\d{10})\.svcj$/;
const TEMPORARY = /^snapshot-\d{10}\.svcdb\.tmp$/;

/**
 * Path of snapshot `generation`.
 *
 * @example
 * snapshotPath("/data", 7); // "/data/snapshot-0000000007.svcdb"
 */
export function snapshotPath(directory: string, generation: number): string {
  return path.join(directory, `snapshot-${pad(generation)}.svcdb`);
}

/**
 * Path of journal segment `generation`.
 *
 * @example
 * segmentPath("/data", 7); // "/data/journal-0000000007.svcj"
 */
export function segmentPath(directory: string, generation: number): string {
  return path.join(directory, `journal-${pad(generation)}.svcj`);
}

/**
 * Lists the snapshots and segments of a data directory, oldest first.
 *
 * @example
 * const {snapshots, segments} = await listDataFiles("/data");
 */
export async function listDataFiles(directory: string): Promise<DataFiles> {
  const snapshots: number[] = [];
  const segments: number[] = [];
  const temporary: string[] = [];
  for (const name of await readdir(directory)) {
    const snapshot = SNAPSHOT.exec(name);
    const segment = SEGMENT.exec(name);
    if (snapshot) snapshots.push(Number(snapshot[1]));
    else if (segment) segments.push(Number(segment[1]));
    else if (TEMPORARY.test(name)) temporary.push(path.join(directory, name));
  }
  const ascending = (a: number, b: number): number => a - b;
  return { snapshots: snapshots.sort(ascending), segments: segments.sort(ascending), temporary };
}

/**
 * Makes a directory entry change (a created, renamed or deleted file) durable: POSIX only
 * promises that after an fsync of the directory itself. Platforms that cannot open a directory
 * for it (Windows) make renames durable on their own, so failing to open is ignored.
 *
 * @example
 * await rename(temporary, final);
 * await syncDirectory(directory);
 */
export async function syncDirectory(directory: string): Promise<void> {
  let handle;
  try {
    handle = await open(directory, "r");
  } catch {
    return;
  }
  try {
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EISDIR" && code !== "EPERM" && code !== "EINVAL" && code !== "EBADF") throw error;
  } finally {
    await handle.close();
  }
}

function pad(generation: number): string {
  return String(generation).padStart(10, "0");
}
