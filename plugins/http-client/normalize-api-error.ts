import { isAxiosError } from "axios";

/** How an outbound call failed (SPEC §2.9). */
export type ApiErrorClassification = "rateLimited" | "unauthorized" | "notFound" | "validation" | "server" | "network" | "unknown";

/**
 * The one shape outbound failures are logged and rethrown in. `messages` come only from fields we
 * recognise in the response body (`message`, an `errors` array of `{title, detail}`, or a plain
 * string body), each cut to 500 characters, so an upstream cannot push arbitrary content (or
 * echoed secrets) into our logs.
 */
export interface NormalizedApiError {
  readonly isAxios: boolean;
  /** The upstream HTTP status; undefined when no response arrived. */
  readonly statusCode?: number;
  readonly messages: readonly string[];
  readonly classification: ApiErrorClassification;
  readonly apiName: string;
  readonly operation: string;
}

/** Longest message kept from an upstream body (SPEC §8). */
export const MAX_API_ERROR_MESSAGE_LENGTH = 500;

/**
 * The classification of an HTTP status: 429 → rateLimited, 401/403 → unauthorized, 404/410 →
 * notFound, 400/409/422 → validation, 5xx → server, anything else → unknown.
 *
 * @example
 * classifyStatus(503); // "server"
 */
export function classifyStatus(status: number): ApiErrorClassification {
  if (status === 429) return "rateLimited";
  if (status === 401 || status === 403) return "unauthorized";
  if (status === 404 || status === 410) return "notFound";
  if (status === 400 || status === 409 || status === 422) return "validation";
  if (status >= 500 && status <= 599) return "server";
  return "unknown";
}

/**
 * Normalises anything an outbound call can throw (an axios error with or without a response, or
 * any other value) into `NormalizedApiError`.
 *
 * @example
 * try { await http.get("/users/1"); }
 * catch (error) { normalizeApiError(error, { apiName: "crm", operation: "getUser" }).classification; }
 */
export function normalizeApiError(error: unknown, where: { apiName: string; operation: string }): NormalizedApiError {
  if (isAxiosError(error)) {
    const status = error.response?.status;
    if (status === undefined) {
      return {
        isAxios: true,
        messages: error.message ? [truncate(error.message)] : [],
        classification: error.code === "ERR_CANCELED" ? "unknown" : "network",
        ...where,
      };
    }
    return { isAxios: true, statusCode: status, messages: messagesFromBody(error.response?.data), classification: classifyStatus(status), ...where };
  }
  const message = error instanceof Error ? error.message : typeof error === "string" ? error : "";
  return { isAxios: false, messages: message ? [truncate(message)] : [], classification: "unknown", ...where };
}

/**
 * The messages of an upstream error body, from recognised fields only.
 *
 * @example
 * messagesFromBody({ errors: [{ title: "Invalid", detail: "email is required" }] }); // ["Invalid: email is required"]
 */
export function messagesFromBody(body: unknown): string[] {
  if (typeof body === "string") return body.trim() ? [truncate(body.trim())] : [];
  if (body === null || typeof body !== "object" || Buffer.isBuffer(body) || body instanceof ArrayBuffer) return [];
  const messages: string[] = [];
  const record = body as Record<string, unknown>;
  if (typeof record.message === "string" && record.message.trim()) messages.push(truncate(record.message.trim()));
  if (Array.isArray(record.errors)) {
    for (const item of record.errors) {
      if (typeof item === "string" && item.trim()) {
        messages.push(truncate(item.trim()));
        continue;
      }
      if (item === null || typeof item !== "object") continue;
      const { title, detail } = item as { title?: unknown; detail?: unknown };
      const parts = [title, detail].filter((part): part is string => typeof part === "string" && part.trim() !== "");
      if (parts.length > 0) messages.push(truncate(parts.join(": ")));
    }
  }
  return messages;
}

function truncate(message: string): string {
  return message.length > MAX_API_ERROR_MESSAGE_LENGTH ? message.slice(0, MAX_API_ERROR_MESSAGE_LENGTH) : message;
}
