import { mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync, writeSync, closeSync } from "node:fs";
import path from "node:path";

/** Name of the lock file inside a data directory (mongod uses `mongod.lock`). */
export const LOCK_FILE_NAME = "svc-db.lock";

/**
 * The data directory is another live process's: `uri` is where that engine listens (when it has
 * started listening), for a caller that would rather connect to it than fail.
 */
export class DataDirectoryInUseError extends Error {
  constructor(
    message: string,
    readonly directory: string,
    readonly ownerPid: number,
    readonly uri: string | undefined,
  ) {
    super(message);
    this.name = "DataDirectoryInUseError";
  }
}

/** An acquired data-directory lock. */
export interface DbPathLock {
  readonly path: string;
  /** Records the address clients reach the engine at, so a second opener is told where to connect. */
  advertise(uri: string): void;
  release(): void;
}

/**
 * Takes the exclusive lock on a data directory: creates `<dbPath>/svc-db.lock` holding our pid
 * with `O_EXCL`. If the file exists and its pid is a live process (this one included), opening
 * fails with an error naming the path; a lock left by a dead process (e.g. after `kill -9`) is
 * taken over, so a crashed engine can always be restarted.
 *
 * @example
 * const lock = acquireDbPathLock(".svc/data"); // throws if another engine uses it
 * lock.release();
 */
export function acquireDbPathLock(dbPath: string): DbPathLock {
  const directory = path.resolve(dbPath);
  mkdirSync(directory, { recursive: true });
  const lockPath = path.join(directory, LOCK_FILE_NAME);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, "wx");
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      return {
        path: lockPath,
        advertise(uri: string) {
          if (!released) writeFileSync(lockPath, `${process.pid}\n${uri}\n`);
        },
        release() {
          if (released) return;
          released = true;
          try {
            unlinkSync(lockPath);
          } catch {
            // Already gone: nothing to release.
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const { pid: owner, uri } = readOwner(lockPath);
      if (owner !== undefined && isAlive(owner)) {
        // One engine per directory: a second process (a command next to a running app) connects to it instead.
        const instead = uri ? `connect to it instead of opening its files (DB_URI=${uri}), or stop it first` : "stop it first, or connect to it with DB_URI";
        throw new DataDirectoryInUseError(`embedded-mongo: the data directory ${directory} is in use by another engine (process ${owner}): ${instead}; lock file ${lockPath}`, directory, owner, uri);
      }
      // Stale lock from a process that died without releasing it.
      try {
        unlinkSync(lockPath);
      } catch {
        // Someone else removed it first; retry the exclusive create.
      }
    }
  }
  throw new Error(`embedded-mongo: could not lock the data directory ${directory} (lock file ${lockPath})`);
}

function readOwner(lockPath: string): { pid?: number; uri?: string } {
  try {
    const [first = "", second = ""] = readFileSync(lockPath, "utf8").split("\n");
    const pid = Number.parseInt(first.trim(), 10);
    const uri = second.trim();
    return { ...(Number.isInteger(pid) && pid > 0 ? { pid } : {}), ...(uri.startsWith("mongodb://") ? { uri } : {}) };
  } catch {
    return {};
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
