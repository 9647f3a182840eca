import { ApiError } from "./api-client";

/** Sent with each create; the server answers a repeat of one from its first answer (docs/rest.md). */
export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

/**
 * The `Idempotency-Key`s of the admin's creates. Saving a form whose answer never arrived (the
 * connection dropped, the tab went offline) and saving it again sends the same data with the same
 * key, so the server creates one record and answers the second save from the first. Once an
 * answer arrives, the same data saved again is a new record with a new key.
 *
 * @example
 * const key = attempts.keyFor("Todo", data);
 * try { await post(data, key); attempts.answered("Todo", data); } catch (error) { attempts.failed("Todo", data, error); throw error; }
 */
export class CreateAttempts {
  private readonly unanswered = new Map<string, string>();

  keyFor(resource: string, data: unknown): string {
    const attempt = attemptOf(resource, data);
    let key = this.unanswered.get(attempt);
    if (!key) {
      key = randomKey();
      this.unanswered.set(attempt, key);
    }
    return key;
  }

  /** The server answered: whatever it said, the next save of this data is a request of its own. */
  answered(resource: string, data: unknown): void {
    this.unanswered.delete(attemptOf(resource, data));
  }

  /** No answer (the network), or the first save still running: the next save is its retry. */
  failed(resource: string, data: unknown, error: unknown): void {
    const unanswered = error instanceof ApiError && (error.status === 0 || error.code === "IDEMPOTENCY_IN_PROGRESS");
    if (!unanswered) this.answered(resource, data);
  }
}

function attemptOf(resource: string, data: unknown): string {
  return JSON.stringify([resource, data]);
}

/** 128 random bits. `crypto.randomUUID` exists only on HTTPS and localhost; an admin on a LAN address is neither. */
function randomKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
