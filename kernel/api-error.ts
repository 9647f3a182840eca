import { SvcError } from "./svc-error.js";

/** Where in the request an error points: a JSON pointer into the body or a query/path parameter. */
export interface ErrorSource {
  pointer?: string;
  parameter?: string;
}

export interface APIErrorOptions {
  status: number;
  title: string;
  detail?: string;
  /** Stable machine-readable code; defaults to `HTTP_<status>`. */
  code?: string;
  source?: ErrorSource;
  meta?: Record<string, unknown>;
  cause?: unknown;
  /** Set for expected server errors that should not reach the error tracker. */
  disableExternalErrorTracking?: boolean;
}

/** One entry of the `errors` array of an error response (ARCHITECTURE §4). */
export interface ErrorObject {
  status: string;
  title: string;
  detail?: string;
  code?: string;
  source?: ErrorSource;
  meta?: Record<string, unknown>;
}

/** The body of every error response. */
export interface ErrorResponseBody {
  errors: ErrorObject[];
  requestId?: string;
}

/**
 * An error meant for an HTTP client. Throw it from routes, hooks and plugins; the host's error
 * handler renders it as `{errors: [{status, title, detail?, code?, source?, meta?}], requestId}`.
 *
 * @example
 * throw new APIError({ status: 404, title: "Todo not found", code: "TODO_NOT_FOUND" });
 */
export class APIError extends SvcError {
  readonly title: string;
  readonly detail?: string;
  readonly source?: ErrorSource;
  readonly meta?: Record<string, unknown>;
  readonly disableExternalErrorTracking: boolean;

  constructor(options: APIErrorOptions) {
    super(options.code ?? `HTTP_${options.status}`, options.detail ?? options.title, {
      status: options.status,
      cause: options.cause,
    });
    this.name = "APIError";
    this.title = options.title;
    this.detail = options.detail;
    this.source = options.source;
    this.meta = options.meta;
    this.disableExternalErrorTracking = options.disableExternalErrorTracking ?? false;
  }

  /** The `errors[]` entry for this error. */
  toErrorObject(): ErrorObject {
    const entry: ErrorObject = { status: String(this.status), title: this.title, code: this.code };
    if (this.detail !== undefined) entry.detail = this.detail;
    if (this.source !== undefined) entry.source = this.source;
    if (this.meta !== undefined) entry.meta = this.meta;
    return entry;
  }
}

/** True for `APIError`s. */
export function isAPIError(error: unknown): error is APIError {
  return error instanceof APIError;
}
