import test from "ava";
import { AxiosError, AxiosHeaders, type AxiosResponse, type InternalAxiosRequestConfig } from "axios";
import { classifyStatus, MAX_API_ERROR_MESSAGE_LENGTH, normalizeApiError, type ApiErrorClassification } from "./normalize-api-error.js";

const where = { apiName: "crm", operation: "getContact" };
const config = { headers: new AxiosHeaders() } as InternalAxiosRequestConfig;

function responseError(status: number, data: unknown): AxiosError {
  const response = { status, data, headers: {}, statusText: "", config } as AxiosResponse;
  return new AxiosError(`Request failed with status code ${status}`, "ERR_BAD_RESPONSE", config, {}, response);
}

test("statuses map to the SPEC classifications", (t) => {
  const expected: Array<[number, ApiErrorClassification]> = [
    [429, "rateLimited"],
    [401, "unauthorized"],
    [403, "unauthorized"],
    [404, "notFound"],
    [400, "validation"],
    [422, "validation"],
    [409, "validation"],
    [500, "server"],
    [503, "server"],
    [418, "unknown"],
  ];
  for (const [status, classification] of expected) t.is(classifyStatus(status), classification, String(status));
});

test("body form: { message }", (t) => {
  t.deepEqual(normalizeApiError(responseError(400, { message: "email is invalid", secret: "x" }), where), {
    isAxios: true,
    statusCode: 400,
    messages: ["email is invalid"],
    classification: "validation",
    ...where,
  });
});

test("body form: errors array of {title, detail} (and plain strings)", (t) => {
  const body = { errors: [{ title: "Invalid", detail: "email is required" }, { title: "Conflict" }, { detail: "only detail" }, "plain", { other: "ignored" }, 42] };
  t.deepEqual(normalizeApiError(responseError(422, body), where).messages, ["Invalid: email is required", "Conflict", "only detail", "plain"]);
});

test("body form: message and errors together", (t) => {
  t.deepEqual(normalizeApiError(responseError(400, { message: "Bad", errors: [{ title: "x" }] }), where).messages, ["Bad", "x"]);
});

test("body form: a plain string body, truncated to 500 characters", (t) => {
  const long = "x".repeat(2000);
  const normalized = normalizeApiError(responseError(502, long), where);
  t.is(normalized.messages[0]!.length, MAX_API_ERROR_MESSAGE_LENGTH);
  t.is(normalized.classification, "server");
  t.is(normalizeApiError(responseError(400, { message: "y".repeat(900) }), where).messages[0]!.length, 500);
});

test("body form: unrecognised fields, empty bodies and binary bodies give no messages", (t) => {
  for (const body of [{ error: "hidden", token: "leak" }, {}, "", null, undefined, Buffer.from("binary"), [1, 2]]) {
    t.deepEqual(normalizeApiError(responseError(500, body), where).messages, [], JSON.stringify(body) ?? "undefined");
  }
});

test("no response: network, with the transport's message", (t) => {
  const error = new AxiosError("connect ECONNREFUSED 10.0.0.1:443", "ECONNREFUSED", config, {});
  t.deepEqual(normalizeApiError(error, where), { isAxios: true, messages: ["connect ECONNREFUSED 10.0.0.1:443"], classification: "network", ...where });
  t.is(normalizeApiError(new AxiosError("canceled", "ERR_CANCELED", config), where).classification, "unknown");
});

test("non-axios errors are unknown and not axios", (t) => {
  t.deepEqual(normalizeApiError(new TypeError("undefined is not a function"), where), {
    isAxios: false,
    messages: ["undefined is not a function"],
    classification: "unknown",
    ...where,
  });
  t.deepEqual(normalizeApiError(undefined, where).messages, []);
});
