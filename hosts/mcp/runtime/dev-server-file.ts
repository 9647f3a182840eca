import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/** Where, relative to the project directory, a development server announces itself. */
export const DEV_SERVER_FILE = path.join(".svc", "dev-server.json");

/** The mount path of the development-only debug routes on the app's router. */
export const DEV_ROUTES_PATH = "/__svc/dev";

/**
 * What a running development server tells local tools about itself (`.svc/dev-server.json`).
 * Only loopback facts: the embedded database's URI is written, an external `DB_URI` (which may
 * hold a password) never is.
 */
export interface DevServerAnnouncement {
  readonly pid: number;
  /** The app's base URL, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  readonly startedAt: string;
  readonly nodeEnv: string;
  /** The embedded engine's URI and the app's database name; absent on an external database. */
  readonly database?: { readonly uri: string; readonly name: string };
  /** `ws://...` when the process runs with `--inspect`. */
  readonly inspectorUrl?: string;
  /** Absolute paths of the winston file transports, when the app writes log files. */
  readonly logFiles?: { readonly combined?: string; readonly error?: string };
}

/**
 * Writes the announcement atomically (a reader never sees half a file).
 *
 * @example
 * await writeDevServerFile(process.cwd(), { pid: process.pid, url, startedAt, nodeEnv: "development" });
 */
export async function writeDevServerFile(projectDir: string, announcement: DevServerAnnouncement): Promise<string> {
  const file = path.resolve(projectDir, DEV_SERVER_FILE);
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(announcement, null, 2)}\n`);
  await rename(temporary, file);
  return file;
}

/** Removes the announcement if it is still this process's (a newer server may have replaced it). */
export async function removeDevServerFile(projectDir: string, pid: number = process.pid): Promise<void> {
  const current = await readAnnouncement(path.resolve(projectDir, DEV_SERVER_FILE));
  if (current?.pid === pid) await rm(path.resolve(projectDir, DEV_SERVER_FILE), { force: true });
}

/**
 * The announcement of the development server running for `projectDir`, or undefined when there is
 * none or its process is gone (a server killed with -9 leaves its file behind).
 *
 * @example
 * const server = await findDevServer(process.cwd());
 * if (server) await fetch(`${server.url}/__svc/dev/info`);
 */
export async function findDevServer(projectDir: string): Promise<DevServerAnnouncement | undefined> {
  const announcement = await readAnnouncement(path.resolve(projectDir, DEV_SERVER_FILE));
  return announcement && isAlive(announcement.pid) ? announcement : undefined;
}

async function readAnnouncement(file: string): Promise<DevServerAnnouncement | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<DevServerAnnouncement>;
    if (typeof parsed.pid !== "number" || typeof parsed.url !== "string") return undefined;
    return parsed as DevServerAnnouncement;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, owned by another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
