import test from "ava";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { catalogueCodes } from "../kernel/errors.js";

// Like fastify's error-docs test: every code a catalogue can produce is documented, so a client
// author can look up any `code` an svc app answers with.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SOURCE_DIRS = ["kernel", "contracts", "adapters", "plugins", "hosts"];

/** Non-test framework sources that declare a catalogue (the embedded engine has its own docs). */
async function catalogueFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const dir of SOURCE_DIRS) {
    for (const entry of await readdir(path.join(root, dir), { withFileTypes: true, recursive: true })) {
      const file = path.join(entry.parentPath, entry.name);
      if (!entry.isFile() || !/\.ts$/.test(entry.name) || /\.test\.ts$/.test(entry.name)) continue;
      if (file.includes(`${path.sep}embedded-mongo${path.sep}`) || file.includes(`${path.sep}test-support${path.sep}`)) continue;
      if (/defineErrors\(\s*"/.test(await readFile(file, "utf8"))) files.push(file);
    }
  }
  return files;
}

/** Every code of every catalogue exported by those files, with the prefix it was declared under. */
async function declaredCodes(): Promise<{ codes: string[]; prefixes: string[] }> {
  const codes: string[] = [];
  const prefixes: string[] = [];
  for (const file of await catalogueFiles()) {
    const text = await readFile(file, "utf8");
    for (const match of text.matchAll(/defineErrors\(\s*"([A-Z0-9_]+)"/g)) prefixes.push(match[1]!);
    const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      if (value !== null && typeof value === "object" && Object.isFrozen(value)) codes.push(...catalogueCodes(value));
    }
  }
  return { codes, prefixes };
}

/** The codes that `docs` (markdown) does not mention in backticks. */
function undocumented(codes: readonly string[], docs: string): string[] {
  const documented = new Set([...docs.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]!));
  return codes.filter((code) => !documented.has(code));
}

test("every error code is documented in docs/errors.md", async (t) => {
  const { codes } = await declaredCodes();
  t.true(codes.length > 50, `found only ${codes.length} codes: is the scan broken?`);
  const docs = await readFile(path.join(root, "docs", "errors.md"), "utf8");
  t.deepEqual(undocumented(codes, docs), [], "add these codes to docs/errors.md");
});

test("each catalogue has its own prefix and every code is unique", async (t) => {
  const { codes, prefixes } = await declaredCodes();
  t.deepEqual(prefixes.filter((prefix, index) => prefixes.indexOf(prefix) !== index), [], "two catalogues share a prefix");
  t.deepEqual(codes.filter((code, index) => codes.indexOf(code) !== index), [], "a code is declared twice");
});

test("the check notices an undocumented code", (t) => {
  t.deepEqual(undocumented(["HTTP_NOT_FOUND", "HTTP_INTERNAL"], "| `HTTP_NOT_FOUND` | 404 | HTTP_INTERNAL unquoted |"), ["HTTP_INTERNAL"]);
});

test("no code is written as a string literal outside a catalogue", async (t) => {
  const offenders: string[] = [];
  for (const dir of SOURCE_DIRS) {
    for (const entry of await readdir(path.join(root, dir), { withFileTypes: true, recursive: true })) {
      const file = path.join(entry.parentPath, entry.name);
      if (!entry.isFile() || !/\.ts$/.test(entry.name) || /\.test\.ts$/.test(entry.name) || file.includes(`${path.sep}embedded-mongo${path.sep}`)) continue;
      // Doc comments may show users writing their own codes; code may not.
      const code = (await readFile(file, "utf8")).split("\n").filter((line) => !/^\s*(\*|\/\/)/.test(line)).join("\n");
      for (const match of code.matchAll(/\bcode:\s*"([A-Z][A-Z0-9_]{3,})"/g)) offenders.push(`${path.relative(root, file)}: ${match[1]}`);
    }
  }
  t.deepEqual(offenders, [], "use a catalogue entry (defineErrors) instead");
});
