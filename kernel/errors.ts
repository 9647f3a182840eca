import { APIError, type ErrorSource } from "./api-error.js";
import { SvcError } from "./svc-error.js";

export { SvcError, hasErrorCode } from "./svc-error.js";

/**
 * A programmer or start-up error: a message built from typed arguments, status 500 unless given.
 * Thrown while building or starting an app, never in answer to a client.
 */
export interface ErrorSpec<Args extends unknown[]> {
  status?: number;
  message: (...args: Args) => string;
}

/**
 * An error a client can cause: it becomes an `APIError` with this status and title (the same for
 * every occurrence; what differs goes in `detail`, `source` and `meta`). 4xx never reach the error
 * tracker; set `track: false` for a 5xx that is not this server's fault (an upstream's 502).
 */
export interface HttpErrorSpec {
  status: number;
  title: string;
  track?: boolean;
}

/** What one occurrence of an HTTP error adds to its catalogue entry. */
export interface HttpErrorDetails {
  detail?: string;
  source?: ErrorSource;
  meta?: Record<string, unknown>;
  cause?: unknown;
}

/** A programmer-error entry turned into a factory; `.code` lets callers compare without building one. */
export type ErrorFactory<Args extends unknown[]> = ((...args: Args) => SvcError) & {
  readonly code: string;
  readonly status: number;
};

/** An HTTP-error entry turned into a factory of `APIError`s. */
export type HttpErrorFactory = ((details?: HttpErrorDetails) => APIError) & {
  readonly code: string;
  readonly status: number;
  readonly title: string;
};

type Catalogue<Specs> = {
  readonly [K in keyof Specs]: Specs[K] extends HttpErrorSpec
    ? HttpErrorFactory
    : Specs[K] extends ErrorSpec<infer Args>
      ? ErrorFactory<Args>
      : never;
};

/**
 * The one error factory: builds a layer's catalogue, whose codes are `<PREFIX>_<KEY>`. An entry
 * with a `title` answers clients (an `APIError`, rendered by the host as
 * `{errors: [{status, title, detail?, code, source?, meta?}], requestId}`); an entry with a
 * `message` reports a programmer or start-up mistake (an `SvcError`). Every code must be listed
 * in `docs/errors.md` — a test checks it.
 *
 * @example
 * export const TodoErrors = defineErrors("TODO", {
 *   ARCHIVED: { status: 409, title: "Todo is archived" },
 *   BAD_LIST_NAME: { message: (name: string) => `List "${name}" is not kebab-case` },
 * });
 * throw TodoErrors.ARCHIVED({ detail: "Unarchive it first" }); // 409, code "TODO_ARCHIVED"
 * throw TodoErrors.BAD_LIST_NAME("My List");                    // SvcError "TODO_BAD_LIST_NAME"
 */
// `any[]` only in the constraint: each entry keeps its own precise argument tuple.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function defineErrors<const Specs extends Record<string, HttpErrorSpec | ErrorSpec<any[]>>>(
  prefix: string,
  specs: Specs,
): Catalogue<Specs> {
  const catalogue: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(specs)) {
    const code = `${prefix}_${key}`;
    catalogue[key] = "title" in spec ? httpFactory(code, spec) : internalFactory(code, spec);
  }
  return Object.freeze(catalogue) as Catalogue<Specs>;
}

function httpFactory(code: string, spec: HttpErrorSpec): HttpErrorFactory {
  const untracked = spec.status < 500 || spec.track === false;
  const factory = (details: HttpErrorDetails = {}) =>
    new APIError({
      status: spec.status,
      title: spec.title,
      code,
      ...details,
      disableExternalErrorTracking: untracked,
    });
  return Object.assign(factory, { code, status: spec.status, title: spec.title });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function internalFactory(code: string, spec: ErrorSpec<any[]>): ErrorFactory<unknown[]> {
  const status = spec.status ?? 500;
  const factory = (...args: unknown[]) => new SvcError(code, spec.message(...args), { status });
  return Object.assign(factory, { code, status });
}

/**
 * Every code of a catalogue (what the error-docs test compares with `docs/errors.md`).
 *
 * @example
 * catalogueCodes(KernelErrors); // ["KERNEL_DUPLICATE_PLUGIN", ...]
 */
export function catalogueCodes(catalogue: object): string[] {
  return Object.values(catalogue)
    .filter((entry): entry is { code: string } => typeof entry === "function" && typeof (entry as { code?: unknown }).code === "string")
    .map((entry) => entry.code);
}
