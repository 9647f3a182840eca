import test from "ava";
import axios, { isAxiosError } from "axios";
import nock from "nock";
import { hasErrorCode } from "../../kernel/errors.js";
import { createSvcLogger, LogCapture } from "../logging/index.js";
import { runWithRequestContext } from "../../kernel/request-context.js";
import { ApiCallError, HttpClientErrors } from "./errors.js";
import { withApiErrorHandling } from "./with-api-error-handling.js";

nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);

let hostCounter = 0;
function setup() {
  const origin = `https://handled-${++hostCounter}.example.com`;
  const capture = new LogCapture();
  const logger = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] });
  return { origin, capture, logger };
}

test("success passes the value through without logging", async (t) => {
  const { origin, capture, logger } = setup();
  nock(origin).get("/ok").reply(200, { id: 1 });
  const data = await withApiErrorHandling(() => axios.get(`${origin}/ok`).then((response) => response.data), { apiName: "crm", operation: "get", logger });
  t.deepEqual(data, { id: 1 });
  t.is(capture.lines.length, 0);
});

test("raw (default): logs the normalised error once with the request id and rethrows the original", async (t) => {
  const { origin, capture, logger } = setup();
  nock(origin).get("/missing").reply(404, { message: "no such contact" });
  const error = await runWithRequestContext({ requestId: "req-api" }, () =>
    t.throwsAsync(withApiErrorHandling(() => axios.get(`${origin}/missing`), { apiName: "crm", operation: "getContact", logger })),
  );
  t.true(isAxiosError(error));
  t.is(capture.lines.length, 1);
  t.like(capture.lines[0], {
    level: "error",
    requestId: "req-api",
    apiError: { isAxios: true, statusCode: 404, messages: ["no such contact"], classification: "notFound", apiName: "crm", operation: "getContact" },
  });
});

test("apiError: throws an ApiCallError with the normalised fields and a code", async (t) => {
  const { origin, logger } = setup();
  nock(origin).post("/invoices").reply(422, { errors: [{ title: "Invalid", detail: "amount must be positive" }] });
  const error = await t.throwsAsync(
    withApiErrorHandling(() => axios.post(`${origin}/invoices`, { amount: -1 }), { apiName: "billing", operation: "createInvoice", rethrowAs: "apiError", logger }),
  );
  t.true(error instanceof ApiCallError);
  t.true(hasErrorCode(error, HttpClientErrors.REQUEST_FAILED));
  t.like(error, { statusCode: 422, classification: "validation", messages: ["Invalid: amount must be positive"], apiName: "billing", operation: "createInvoice" });
  t.true(isAxiosError((error as Error).cause));
});

test("nested handlers log the failure only once", async (t) => {
  const { origin, capture, logger } = setup();
  nock(origin).get("/boom").reply(500, "upstream exploded");
  const inner = () => withApiErrorHandling(() => axios.get(`${origin}/boom`), { apiName: "crm", operation: "inner", rethrowAs: "apiError", logger });
  const error = await t.throwsAsync(withApiErrorHandling(inner, { apiName: "crm", operation: "outer", logger, rethrowAs: "apiError" }));
  t.is(capture.lines.length, 1);
  t.is((error as ApiCallError).operation, "inner");
});

test("redactError keeps upstream content and request payloads out of logs and the rethrown error", async (t) => {
  const { origin, capture, logger } = setup();
  nock(origin).post("/patients").reply(400, { message: "patient Jane Doe, born 1970-01-01, already exists" });
  const raw = await t.throwsAsync(
    withApiErrorHandling(() => axios.post(`${origin}/patients`, { name: "Jane Doe" }, { headers: { authorization: "Bearer secret-token" } }), {
      apiName: "ehr",
      operation: "createPatient",
      redactError: true,
      logger,
    }),
  );
  t.false(capture.text().includes("Jane"));
  t.deepEqual((capture.lines[0]!.apiError as { messages: string[] }).messages, []);
  const serialized = JSON.stringify((raw as { toJSON?: () => unknown }).toJSON?.() ?? raw);
  t.false(serialized.includes("Jane"));
  t.false(serialized.includes("secret-token"));

  nock(origin).post("/patients").reply(400, { message: "Jane again" });
  const wrapped = await t.throwsAsync(
    withApiErrorHandling(() => axios.post(`${origin}/patients`, {}), { apiName: "ehr", operation: "createPatient", redactError: true, rethrowAs: "apiError", logger }),
  );
  t.deepEqual((wrapped as ApiCallError).messages, []);
  t.is((wrapped as Error).cause, undefined);
});

test("non-HTTP failures are normalised as unknown and rethrown", async (t) => {
  const { capture, logger } = setup();
  const error = await t.throwsAsync(
    withApiErrorHandling(async () => {
      throw new TypeError("bad mapping");
    }, { apiName: "crm", operation: "map", logger }),
  );
  t.true(error instanceof TypeError);
  t.like(capture.lines[0], { apiError: { isAxios: false, classification: "unknown", messages: ["bad mapping"] } });
});
