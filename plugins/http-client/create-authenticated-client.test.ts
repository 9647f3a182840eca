import test from "ava";
import nock from "nock";
import { hasErrorCode } from "../../kernel/errors.js";
import { runWithRequestContext } from "../../kernel/request-context.js";
import { createAuthenticatedClient, type OutboundAuth } from "./create-authenticated-client.js";
import { ApiCallError, HttpClientErrors } from "./errors.js";

nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);

const silent = { debug() {}, info() {}, warn() {}, error() {} };
let hostCounter = 0;
const nextOrigin = () => `https://api-${++hostCounter}.example.com`;

function make(auth: OutboundAuth, origin = nextOrigin(), extra: { now?: () => number } = {}) {
  return { origin, ...createAuthenticatedClient({ apiName: "crm", baseURL: origin, auth, logger: silent, retry: { delayScale: 0 }, ...extra }) };
}

test("bearer: the token provider is asked on every request", async (t) => {
  let issued = 0;
  const { http, origin } = make({ type: "bearer", getToken: async () => `token-${++issued}` });
  nock(origin).matchHeader("authorization", "Bearer token-1").get("/a").reply(200, {});
  nock(origin).matchHeader("authorization", "Bearer token-2").get("/b").reply(200, {});
  await http.get("/a");
  await http.get("/b");
  t.is(issued, 2);
});

test("apiKey: the key goes in the named header", async (t) => {
  const { http, origin } = make({ type: "apiKey", header: "x-api-key", getKey: () => "key-123" });
  const scope = nock(origin).matchHeader("x-api-key", "key-123").get("/a").reply(200, { ok: true });
  t.deepEqual((await http.get("/a")).data, { ok: true });
  t.true(scope.isDone());
});

function oauth(tokenOrigin: string, extra: Partial<Extract<OutboundAuth, { type: "oauth2" }>> = {}): OutboundAuth {
  return { type: "oauth2", tokenUrl: `${tokenOrigin}/oauth/token`, credentials: { clientId: "id", clientSecret: "s3cret", scope: ["read", "write"] }, ...extra };
}

/** A token endpoint answering at-1, at-2, … (an hour each); `issued()` says how many it gave. */
function tokenEndpoint() {
  const origin = nextOrigin();
  let issued = 0;
  nock(origin).post("/oauth/token").times(5).reply(() => [200, { access_token: `at-${++issued}`, expires_in: 3600 }]);
  return { origin, issued: () => issued };
}

test("oauth2: one token request serves concurrent and later calls (Basic client auth, form body)", async (t) => {
  const tokenOrigin = nextOrigin();
  let tokenRequests = 0;
  let body = "";
  nock(tokenOrigin)
    .matchHeader("authorization", `Basic ${Buffer.from("id:s3cret").toString("base64")}`)
    .post("/oauth/token")
    .times(5)
    .reply((_uri, requestBody) => {
      tokenRequests += 1;
      body = String(requestBody);
      return [200, { access_token: "at-1", expires_in: 3600, token_type: "Bearer" }];
    });
  const { http, origin } = make(oauth(tokenOrigin));
  nock(origin).matchHeader("authorization", "Bearer at-1").get("/contacts").times(4).reply(200, []);
  await Promise.all([http.get("/contacts"), http.get("/contacts"), http.get("/contacts")]);
  await http.get("/contacts");
  t.is(tokenRequests, 1);
  t.deepEqual(Object.fromEntries(new URLSearchParams(body)), { grant_type: "client_credentials", scope: "read write" });
});

test("oauth2: client credentials can go in the form body", async (t) => {
  const tokenOrigin = nextOrigin();
  let body = "";
  nock(tokenOrigin)
    .post("/oauth/token")
    .reply((_uri, requestBody) => ((body = String(requestBody)), [200, { access_token: "at", expires_in: 60 }]));
  const { http, origin } = make({ type: "oauth2", tokenUrl: `${tokenOrigin}/oauth/token`, credentials: { clientId: "id", clientSecret: "s", authMethod: "body" } });
  nock(origin).get("/x").reply(200, {});
  await http.get("/x");
  t.like(Object.fromEntries(new URLSearchParams(body)), { client_id: "id", client_secret: "s" });
});

test("oauth2: an expiring token is refreshed before it runs out", async (t) => {
  const tokenOrigin = nextOrigin();
  let issued = 0;
  nock(tokenOrigin).post("/oauth/token").times(3).reply(() => [200, { access_token: `at-${++issued}`, expires_in: 120 }]);
  let now = 1_000_000;
  const { http, origin } = make(oauth(tokenOrigin), nextOrigin(), { now: () => now });
  nock(origin).get("/x").times(3).reply(200, {});
  await http.get("/x");
  now += 60_000; // still valid (120 s lifetime, refreshed 30 s early)
  await http.get("/x");
  t.is(issued, 1);
  now += 31_000;
  await http.get("/x");
  t.is(issued, 2);
});

test("oauth2: a 401 invalidates the token, fetches a new one and repeats the request exactly once", async (t) => {
  const tokens = tokenEndpoint();
  const tokenOrigin = tokens.origin;
  const { http, origin } = make(oauth(tokenOrigin));
  nock(origin).matchHeader("authorization", "Bearer at-1").get("/me").reply(401, { message: "token revoked" });
  nock(origin).matchHeader("authorization", "Bearer at-2").get("/me").reply(200, { id: 1 });
  t.deepEqual((await http.get("/me")).data, { id: 1 });
  t.is(tokens.issued(), 2);

  // A second 401 in a row is returned, not retried again.
  let calls = 0;
  nock(origin).get("/always-401").times(5).reply(() => (calls++, [401, {}]));
  const error = await t.throwsAsync(http.get("/always-401"));
  t.is((error as { response?: { status: number } }).response?.status, 401);
  t.is(calls, 2);
  t.is(tokens.issued(), 3);
});

test("oauth2: the request repeated after a 401 has its own retries, however many the first attempt used", async (t) => {
  const tokens = tokenEndpoint();
  const tokenOrigin = tokens.origin;
  const { http, origin } = make(oauth(tokenOrigin));
  // The first token meets two 503s (the default 3 attempts: 2 retries), then a 401; the new token
  // meets one 503 before its answer, which a fresh retry budget rides out.
  nock(origin).matchHeader("authorization", "Bearer at-1").get("/report").times(2).reply(503, {});
  nock(origin).matchHeader("authorization", "Bearer at-1").get("/report").reply(401, {});
  nock(origin).matchHeader("authorization", "Bearer at-2").get("/report").reply(503, {});
  nock(origin).matchHeader("authorization", "Bearer at-2").get("/report").reply(200, { rows: 3 });
  t.deepEqual((await http.get("/report")).data, { rows: 3 });
  t.is(tokens.issued(), 2);
});

test("oauth2: a 401 for a token already replaced keeps its successor: no second refresh, the request repeated with it", async (t) => {
  const tokens = tokenEndpoint();
  const tokenOrigin = tokens.origin;
  const { http, origin } = make(oauth(tokenOrigin));
  nock(origin).get("/warm").reply(200, {});
  await http.get("/warm");
  // at-1 is revoked. A request sent with it gets its 401 only after another request's 401 has
  // already brought at-2.
  let reached!: () => void;
  const slowSent = new Promise<void>((resolve) => (reached = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  nock(origin)
    .matchHeader("authorization", "Bearer at-1")
    .get("/slow")
    .reply((_uri, _body, callback) => {
      reached();
      void released.then(() => callback(null, [401, {}]));
    });
  nock(origin).matchHeader("authorization", "Bearer at-1").get("/fast").reply(401, {});
  nock(origin).matchHeader("authorization", "Bearer at-2").get(/\/(slow|fast|later)/).times(3).reply(200, { ok: true });
  const slow = http.get("/slow");
  await slowSent;
  await http.get("/fast");
  t.is(tokens.issued(), 2);
  release();
  t.deepEqual((await slow).data, { ok: true });
  await http.get("/later");
  t.is(tokens.issued(), 2);
});

test("oauth2: a 401 for the old token while its successor is being fetched shares that fetch, and the successor stays cached", async (t) => {
  const tokenOrigin = nextOrigin();
  const origin = nextOrigin();
  let issued = 0;
  const signal = () => {
    let resolve!: () => void;
    const promise = new Promise<void>((done) => (resolve = done));
    return { promise, resolve };
  };
  const refreshing = signal();
  const tokenAnswer = signal();
  const secondSent = signal();
  const secondAnswer = signal();
  const secondRejected = signal();
  nock(tokenOrigin).post("/oauth/token").reply(() => [200, { access_token: `at-${++issued}`, expires_in: 3600 }]);
  nock(tokenOrigin)
    .post("/oauth/token")
    .times(4)
    .reply((_uri, _body, callback) => {
      const token = `at-${++issued}`;
      refreshing.resolve();
      void tokenAnswer.promise.then(() => callback(null, [200, { access_token: token, expires_in: 3600 }]));
    });
  // Each refresh after a 401 is logged (at info) right after the token is dropped.
  let refreshes = 0;
  const logger = { ...silent, info: () => void (++refreshes === 2 && secondRejected.resolve()) };
  const { http } = createAuthenticatedClient({ apiName: "crm", baseURL: origin, auth: oauth(tokenOrigin), logger, retry: { delayScale: 0 } });
  nock(origin).get("/warm").reply(200, {});
  await http.get("/warm");
  nock(origin)
    .matchHeader("authorization", "Bearer at-1")
    .get("/second")
    .reply((_uri, _body, callback) => {
      secondSent.resolve();
      void secondAnswer.promise.then(() => callback(null, [401, {}]));
    });
  nock(origin).matchHeader("authorization", "Bearer at-1").get("/first").reply(401, {});
  nock(origin).matchHeader("authorization", "Bearer at-2").get(/\/(first|second|later)/).times(3).reply(200, { ok: true });
  // Both sent with at-1; the second's 401 arrives while the first's refresh is fetching at-2.
  const second = http.get("/second");
  await secondSent.promise;
  const first = http.get("/first");
  await refreshing.promise;
  secondAnswer.resolve();
  await secondRejected.promise;
  tokenAnswer.resolve();
  t.deepEqual((await Promise.all([first, second])).map((response) => response.data), [{ ok: true }, { ok: true }]);
  await http.get("/later");
  t.is(issued, 2);
});

test("oauth2: refreshOn401 false returns the 401 without a refresh; invalidateToken forces a new token", async (t) => {
  const tokens = tokenEndpoint();
  const tokenOrigin = tokens.origin;
  const client = make(oauth(tokenOrigin, { refreshOn401: false }));
  nock(client.origin).get("/me").reply(401, {});
  await t.throwsAsync(client.http.get("/me"));
  t.is(tokens.issued(), 1);
  client.invalidateToken();
  nock(client.origin).matchHeader("authorization", "Bearer at-2").get("/me").reply(200, {});
  await client.http.get("/me");
  t.is(tokens.issued(), 2);
});

/** A GET whose token request the token endpoint answers with `status` and `body`; resolves to the error. */
function callWithTokenResponse(status: number, body: Record<string, unknown>): Promise<unknown> {
  const tokenOrigin = nextOrigin();
  nock(tokenOrigin).post("/oauth/token").reply(status, body);
  const { http, origin } = make(oauth(tokenOrigin));
  nock(origin).get("/x").reply(200, {});
  return http.get("/x").then(
    () => undefined,
    (error: unknown) => error,
  );
}

test("oauth2: a failing token endpoint gives HTTP_CLIENT_TOKEN_REQUEST_FAILED without the secret", async (t) => {
  const error = await callWithTokenResponse(400, { message: "invalid_client" });
  t.true(hasErrorCode(error, HttpClientErrors.TOKEN_REQUEST_FAILED));
  t.true(error instanceof ApiCallError);
  t.like(error, { statusCode: 400, classification: "validation", messages: ["invalid_client"], operation: "oauth2-token" });
  t.false(JSON.stringify(error).includes("s3cret"));
  t.is((error as Error).cause, undefined);
  // Even when the endpoint quotes the secret back in its message.
  const echoed = await callWithTokenResponse(401, { message: "client secret s3cret is wrong" });
  t.true(hasErrorCode(echoed, HttpClientErrors.TOKEN_REQUEST_FAILED));
  t.false(JSON.stringify(echoed).includes("s3cret"), JSON.stringify(echoed));
  t.like(echoed, { messages: ["client secret [REDACTED] is wrong"] });
});

test("oauth2: a token response without access_token is refused", async (t) => {
  const error = await callWithTokenResponse(200, { token_type: "Bearer" });
  t.true(hasErrorCode(error, HttpClientErrors.INVALID_TOKEN_RESPONSE));
});

test("correlation headers of the current request go on every call (token calls included)", async (t) => {
  const tokenOrigin = nextOrigin();
  const traceId = "0af7651916cd43dd8448eb211c80319c";
  const spanId = "b7ad6b7169203331";
  nock(tokenOrigin).matchHeader("x-request-id", "req-77").post("/oauth/token").reply(200, { access_token: "at", expires_in: 60 });
  const { http, origin } = make(oauth(tokenOrigin));
  const scope = nock(origin)
    .matchHeader("x-request-id", "req-77")
    .matchHeader("x-correlation-id", "req-77")
    .matchHeader("traceparent", `00-${traceId}-${spanId}-01`)
    .get("/x")
    .reply(200, {});
  await runWithRequestContext({ requestId: "req-77", traceId, spanId }, () => http.get("/x"));
  t.true(scope.isDone());
});

test("an explicit header wins over the forwarded correlation header", async (t) => {
  const { http, origin } = make({ type: "bearer", getToken: () => "t" });
  const scope = nock(origin).matchHeader("x-request-id", "chosen").get("/x").reply(200, {});
  await runWithRequestContext({ requestId: "ambient" }, () => http.get("/x", { headers: { "x-request-id": "chosen" } }));
  t.true(scope.isDone());
});

test("invalid options are refused with a code", (t) => {
  const error = t.throws(() => createAuthenticatedClient({ apiName: "x", baseURL: "https://x", auth: { type: "magic" } as never }));
  t.true(hasErrorCode(error, HttpClientErrors.INVALID_OPTIONS));
});
