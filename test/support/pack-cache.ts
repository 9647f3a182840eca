// The packed svc is the same for every test process of a run, and building it is the costliest
// step of a consumer-project test (a full `tsc` of the package, tens of seconds on 2 cores), so
// the tests that install it share one build: keyed by a hash of everything the package is made
// from, so an edit to any source, doc or setting builds a fresh one.
import { createHash } from "node:crypto";
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";

/** What `npm pack` made: the tarball and the paths it holds. */
export interface PackedPackage {
  readonly tarball: string;
  readonly files: string[];
}

const CACHE = path.join(tmpdir(), "svc-pack-cache");
/** A build that takes longer than this is taken for dead (its process crashed). */
const BUILD_WAIT_MS = 10 * 60_000;

/**
 * The hash of every file the packed package is built from: the package's settings, README and
 * docs, every file under the build's `include` folders, the lockfile and the compiler's version.
 *
 * @example
 * const key = await packInputsHash("/work/svc");
 */
export async function packInputsHash(root: string): Promise<string> {
  const build = JSON.parse(await readFile(path.join(root, "tsconfig.build.json"), "utf8")) as { include: string[] };
  const typescript = JSON.parse(await readFile(createRequire(path.join(root, "package.json")).resolve("typescript/package.json"), "utf8")) as { version: string };
  const entries = ["package.json", "package-lock.json", "README.md", "tsconfig.json", "tsconfig.build.json", "docs", ...build.include];
  const files: string[] = [];
  for (const entry of entries) files.push(...(await filesUnder(root, entry)));
  const hash = createHash("sha256").update(`typescript ${typescript.version}\n`);
  for (const file of files.sort()) hash.update(`${file}\n`).update(await readFile(path.join(root, file))).update("\n");
  return hash.digest("hex").slice(0, 32);
}

async function filesUnder(root: string, entry: string): Promise<string[]> {
  const info = await stat(path.join(root, entry)).catch(() => undefined);
  if (!info) return [];
  if (!info.isDirectory()) return [entry];
  const names = await readdir(path.join(root, entry), { recursive: true, withFileTypes: true });
  return names
    .filter((dirent) => dirent.isFile())
    .map((dirent) => path.relative(root, path.join(dirent.parentPath, dirent.name)))
    .filter((file) => !file.split(path.sep).includes("node_modules"));
}

/**
 * The package packed once per content: the first process builds it with `pack` (into a folder of
 * its own) and publishes the result under the hash; the others wait for it, or build it
 * themselves when no build is under way.
 *
 * @example
 * const { tarball } = await sharedPack(root, (dir) => buildAndPack(dir));
 */
export async function sharedPack(root: string, pack: () => Promise<PackedPackage>): Promise<PackedPackage> {
  const key = await packInputsHash(root);
  const entry = path.join(CACHE, key);
  const lock = `${entry}.building`;
  await mkdir(CACHE, { recursive: true });
  const deadline = Date.now() + BUILD_WAIT_MS;
  for (;;) {
    const cached = await readEntry(entry);
    if (cached) return cached;
    const locked = await mkdir(lock).then(
      () => true,
      () => false,
    );
    if (locked) break;
    // Another process builds it: wait, unless it died (its lock names its pid).
    const owner = Number(await readFile(path.join(lock, "pid"), "utf8").catch(() => ""));
    if ((owner > 0 && !isAlive(owner)) || Date.now() > deadline) return pack();
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  try {
    await writeFile(path.join(lock, "pid"), String(process.pid));
    const packed = await pack();
    const staging = `${entry}.${process.pid}`;
    await mkdir(staging, { recursive: true });
    await copyFile(packed.tarball, path.join(staging, path.basename(packed.tarball)));
    await writeFile(path.join(staging, "packed.json"), JSON.stringify({ tarball: path.basename(packed.tarball), files: packed.files }));
    // Published whole or not at all: a reader never sees a half-written entry.
    await rename(staging, entry).catch(() => rm(staging, { recursive: true, force: true }));
    await pruneOlderBuilds(key);
    return (await readEntry(entry)) ?? packed;
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

async function readEntry(entry: string): Promise<PackedPackage | undefined> {
  const text = await readFile(path.join(entry, "packed.json"), "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  const { tarball, files } = JSON.parse(text) as { tarball: string; files: string[] };
  return { tarball: path.join(entry, tarball), files };
}

/** Builds of other content a day old or more: no run still uses them. */
async function pruneOlderBuilds(key: string): Promise<void> {
  const dayAgo = Date.now() - 24 * 60 * 60_000;
  for (const name of await readdir(CACHE)) {
    if (name.startsWith(key) || name.endsWith(".building")) continue;
    const info = await stat(path.join(CACHE, name)).catch(() => undefined);
    if (info && info.mtimeMs < dayAgo) await rm(path.join(CACHE, name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
