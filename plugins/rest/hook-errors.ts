import { isAPIError } from "../../kernel/api-error.js";
import { SvcError } from "../../kernel/errors.js";
import { RestErrors } from "./errors.js";

/**
 * Runs a lifecycle hook. An `APIError` it throws goes to the client as is; a coded `SvcError`
 * keeps its status when that is a client error; anything else becomes a 400 `REST_HOOK_FAILED`
 * carrying the message (hooks throw to reject a request, e.g. "Title already used").
 *
 * @example
 * const body = await runHook("preCreate", () => options.preCreate!(body, req));
 */
export async function runHook<R>(name: string, call: () => R | Promise<R>): Promise<R> {
  try {
    return await call();
  } catch (error) {
    if (isAPIError(error)) throw error;
    if (error instanceof SvcError && error.status < 500) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw RestErrors.HOOK_FAILED({ detail: `${name}: ${message}`, cause: error });
  }
}

/** The 403 of a pre hook that returned null or undefined. */
export function hookDenied(name: string) {
  return RestErrors.HOOK_DENIED({ detail: `${name} refused the request` });
}
