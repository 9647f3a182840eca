import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { SvcError } from "../../../kernel/errors.js";
import { SyncCodegenErrors } from "./errors.js";
import type { OpenApiDocument } from "./find-collections.js";
import { generateSyncHooks } from "./render-hooks.js";

export const USAGE = `usage: svc-syncdb-codegen --schema <url|file> --out <file> [--collections <a,b>] [--config <file>] [--timeout <ms>]

  --schema       the app's OpenAPI document: a URL (e.g. http://localhost:3000/openapi.json) or a file
  --out          the TypeScript file to write (folders are created)
  --collections  comma-separated collections, read from GET /{name}: needed when no list operation
                 carries x-svc-sync; otherwise picks some of the synced ones
  --config       a JSON file with any of {schema, out, collections, importFrom}; flags win
                 (importFrom: where the hooks import svc/sync/react from)
  --timeout      how long to wait for a --schema URL, in ms (default 30000)`;

/** A schema URL that accepted the connection and never answered would hang a CI job for good. */
const DEFAULT_TIMEOUT_MS = 30_000;

/** Where `runCodegen` prints (the process's streams in the command). */
export interface CodegenIo {
  out(line: string): void;
  error(line: string): void;
}

interface CodegenConfig {
  schema?: string;
  out?: string;
  collections?: string[];
  importFrom?: string;
}

async function readConfig(file: string): Promise<CodegenConfig> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw SyncCodegenErrors.INVALID_CONFIG(file, error instanceof Error ? error.message : String(error));
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw SyncCodegenErrors.INVALID_CONFIG(file, "expected a JSON object");
  const config = parsed as Record<string, unknown>;
  for (const key of Object.keys(config)) {
    if (!["schema", "out", "collections", "importFrom"].includes(key)) throw SyncCodegenErrors.INVALID_CONFIG(file, `unknown key ${key}`);
  }
  for (const key of ["schema", "out", "importFrom"] as const) {
    if (config[key] !== undefined && typeof config[key] !== "string") throw SyncCodegenErrors.INVALID_CONFIG(file, `${key} must be a string`);
  }
  if (config.collections !== undefined && !(Array.isArray(config.collections) && config.collections.every((name) => typeof name === "string" && name))) {
    throw SyncCodegenErrors.INVALID_CONFIG(file, "collections must be an array of names");
  }
  // Paths in the config are relative to the config file.
  const dir = path.dirname(file);
  const local = (value: unknown) => (typeof value === "string" && !/^https?:\/\//.test(value) ? path.resolve(dir, value) : (value as string | undefined));
  return {
    ...(config.schema === undefined ? {} : { schema: local(config.schema)! }),
    ...(config.out === undefined ? {} : { out: local(config.out)! }),
    ...(config.collections === undefined ? {} : { collections: config.collections as string[] }),
    ...(config.importFrom === undefined ? {} : { importFrom: config.importFrom as string }),
  };
}

async function loadDocument(source: string, timeoutMs: number): Promise<OpenApiDocument> {
  let text: string;
  try {
    if (/^https?:\/\//.test(source)) {
      const signal = AbortSignal.timeout(timeoutMs);
      const response = await fetch(source, { headers: { accept: "application/json" }, signal }).catch((error: unknown) => {
        throw signal.aborted ? new Error(`no answer within ${timeoutMs} ms (--timeout)`) : error;
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      text = await response.text();
    } else {
      text = await readFile(source, "utf8");
    }
  } catch (error) {
    throw SyncCodegenErrors.SCHEMA_UNREADABLE(source, error instanceof Error ? error.message : String(error));
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw SyncCodegenErrors.SCHEMA_UNREADABLE(source, "not JSON");
  }
  if (!document || typeof document !== "object" || typeof (document as { paths?: unknown }).paths !== "object") {
    throw SyncCodegenErrors.SCHEMA_UNREADABLE(source, "not an OpenAPI document (no paths)");
  }
  return document as OpenApiDocument;
}

async function generate(argv: readonly string[], io: CodegenIo): Promise<number> {
  let values: { schema?: string; out?: string; config?: string; collections?: string; timeout?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { schema: { type: "string" }, out: { type: "string" }, config: { type: "string" }, collections: { type: "string" }, timeout: { type: "string" }, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw SyncCodegenErrors.USAGE(error instanceof Error ? error.message : String(error));
  }
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  const config = values.config ? await readConfig(values.config) : {};
  const schema = values.schema ?? config.schema;
  const out = values.out ?? config.out;
  if (!schema) throw SyncCodegenErrors.USAGE("--schema <url|file> is required");
  if (!out) throw SyncCodegenErrors.USAGE("--out <file> is required");
  const collections = values.collections !== undefined ? values.collections.split(",").map((name) => name.trim()).filter(Boolean) : config.collections;
  if (values.collections !== undefined && collections?.length === 0) throw SyncCodegenErrors.USAGE("--collections needs at least one name");
  const timeoutMs = values.timeout === undefined ? DEFAULT_TIMEOUT_MS : Number(values.timeout);
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) throw SyncCodegenErrors.USAGE(`--timeout must be a whole number of milliseconds (1 or more), not ${values.timeout}`);
  const document = await loadDocument(schema, timeoutMs);
  let source: string;
  try {
    source = generateSyncHooks(document, {
      ...(collections ? { collections } : {}),
      ...(config.importFrom ? { importFrom: config.importFrom } : {}),
      source: schema,
    });
  } catch (error) {
    if (error instanceof SvcError) throw error;
    // JSON with paths that breaks OpenAPI's rules where the generator reads (a `required` that is
    // no list, a number for a collection's name) fails deep inside: say which document and why.
    throw SyncCodegenErrors.SCHEMA_UNREADABLE(schema, `not an OpenAPI document the generator can read (${error instanceof Error ? error.message : String(error)})`);
  }
  try {
    await mkdir(path.dirname(path.resolve(out)), { recursive: true });
    await writeFile(out, source);
  } catch (error) {
    throw SyncCodegenErrors.WRITE_FAILED(out, error instanceof Error ? error.message : String(error));
  }
  io.out(`svc-syncdb-codegen: wrote ${out}`);
  return 0;
}

/**
 * Runs the generator as the command does: parses `argv`, reads the document, writes the file.
 * Resolves with the exit code: 0, or 1 after printing why as `svc-syncdb-codegen: <code>: <message>`
 * (misuse, unreadable schema, a collection the document cannot describe, an unwritable `--out`).
 *
 * @example
 * process.exitCode = await runCodegen(["--schema", "http://localhost:3000/openapi.json", "--out", "src/sync-hooks.ts"], { out: console.log, error: console.error });
 */
export async function runCodegen(argv: readonly string[], io: CodegenIo): Promise<number> {
  try {
    return await generate(argv, io);
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    // One shape for every refusal, whichever layer raised it: the command's name, the code, why.
    io.error(`svc-syncdb-codegen: ${error.code}: ${error.message}`);
    if (error.code === SyncCodegenErrors.USAGE.code) io.error(USAGE);
    return 1;
  }
}
