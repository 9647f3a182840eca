/**
 * Coded errors. Every layer declares one catalogue of its errors with stable codes (the `code` is
 * what callers and tests match on; the message is for humans and may change).
 *
 * @example
 * export const KernelErrors = defineErrors("KERNEL", {
 *   DUPLICATE_PLUGIN: { status: 500, message: (name: string) => `Plugin "${name}" is registered twice` },
 * });
 * throw KernelErrors.DUPLICATE_PLUGIN("auth"); // SvcError, code "KERNEL_DUPLICATE_PLUGIN"
 */
export class SvcError extends Error {
  /** Stable, upper-snake-case identifier, e.g. `KERNEL_PHASE_TIMEOUT`. */
  readonly code: string;
  /** HTTP status when the error reaches a response; 500 for programmer and start-up errors. */
  readonly status: number;

  constructor(code: string, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SvcError";
    this.code = code;
    this.status = options.status ?? 500;
  }
}

/** One entry of an error catalogue: its HTTP status and a message built from typed arguments. */
export interface ErrorSpec<Args extends unknown[]> {
  status?: number;
  message: (...args: Args) => string;
}

/** A catalogue entry turned into a factory; `.code` lets callers compare without building one. */
export type ErrorFactory<Args extends unknown[]> = ((...args: Args) => SvcError) & {
  readonly code: string;
  readonly status: number;
};

type Catalogue<Specs> = {
  readonly [K in keyof Specs]: Specs[K] extends ErrorSpec<infer Args> ? ErrorFactory<Args> : never;
};

/**
 * Builds a catalogue of error factories whose codes are `<PREFIX>_<KEY>`.
 *
 * @example
 * const RestErrors = defineErrors("REST", { BAD_QUERY: { status: 400, message: (p: string) => `Bad ${p}` } });
 * RestErrors.BAD_QUERY("limit").code; // "REST_BAD_QUERY"
 */
// `any[]` only in the constraint: each entry keeps its own precise argument tuple.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function defineErrors<const Specs extends Record<string, ErrorSpec<any[]>>>(
  prefix: string,
  specs: Specs,
): Catalogue<Specs> {
  const catalogue: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(specs)) {
    const code = `${prefix}_${key}`;
    const status = spec.status ?? 500;
    const factory = (...args: unknown[]) => new SvcError(code, spec.message(...args), { status });
    catalogue[key] = Object.assign(factory, { code, status });
  }
  return catalogue as Catalogue<Specs>;
}

/** True when `error` is an `SvcError` with the given code (or one of a catalogue entry). */
export function hasErrorCode(error: unknown, code: string | { code: string }): error is SvcError {
  const expected = typeof code === "string" ? code : code.code;
  return error instanceof SvcError && error.code === expected;
}
