import test, { type ExecutionContext } from "ava";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { HTTP_ROUTER } from "../contracts/http.js";
import { SOCKET_SERVER } from "../contracts/socket-server.js";
import { HttpErrors } from "../kernel/http-errors.js";
import type { SvcPlugin } from "../kernel/plugin.js";
import { ClientFaultWatch, startWatchedApp } from "../test/support/client-fault-watch.js";
import { parseRawAnswer, sendBytes, type ParsedAnswer } from "../test/support/raw-http.js";
import { setupServer } from "./setup-server.js";
import { SvcApp } from "./svc-app.js";

const routes: SvcPlugin = {
  name: "echo-routes",
  start(ctx) {
    const router = ctx.resolve(HTTP_ROUTER);
    router.get("/ok", (_req, res) => res.json({ data: "ok" }));
    router.post("/echo", (req, res) => res.json({ data: req.body }));
  },
};

/** A plugin that asks for the socket server, so the app opens one. */
const sockets: SvcPlugin = {
  name: "socket-user",
  start(ctx) {
    ctx.resolve(SOCKET_SERVER);
  },
};

function startApp(t: ExecutionContext, options: { socketPort?: number } = {}) {
  return startWatchedApp(t, [routes, sockets], options.socketPort);
}

/** The answer is the app's error shape with `code`, and closes the connection. */
function assertErrorShape(t: ExecutionContext, answer: ParsedAnswer, status: number, code: string, label: string): void {
  t.is(answer.status, status, label);
  t.regex(answer.headers["content-type"] ?? "", /^application\/json/, label);
  t.is(answer.headers.connection, "close", label);
  const body = JSON.parse(answer.body) as { errors: Array<{ status: string; code: string; title: string }>; requestId: string };
  t.is(body.errors.length, 1, label);
  t.like(body.errors[0], { status: String(status), code }, label);
  t.is(typeof body.errors[0]!.title, "string", label);
  t.is(body.requestId, answer.headers["x-request-id"], label);
  t.is(Buffer.byteLength(answer.body), Number(answer.headers["content-length"]), label);
}

const OVERSIZED_HEADERS = `GET /ok HTTP/1.1\r\nHost: x\r\nX-Filler: ${"a".repeat(20_000)}\r\n\r\n`;

/** Requests Node's HTTP parser refuses before any route runs. */
const BAD_FRAMING: ReadonlyArray<[label: string, bytes: string]> = [
  ["not HTTP at all", "HELLO THERE\r\n\r\n"],
  ["a header line without a colon", "GET /ok HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n"],
  ["Content-Length and Transfer-Encoding together", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}"],
  ["a Content-Length that is not a number", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n"],
  ["two different Content-Lengths", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}"],
  ["a request line with a bad version", "GET /ok HTTP/9.Z\r\nHost: x\r\n\r\n"],
  ["a space in the path", "GET /o k HTTP/1.1\r\nHost: x\r\n\r\n"],
];

test("headers over Node's limit are 431 HTTP_HEADERS_TOO_LARGE in the error shape, a client fault", async (t) => {
  const { running, watch } = await startApp(t);
  assertErrorShape(t, parseRawAnswer(await sendBytes(running.url, OVERSIZED_HEADERS)), 431, HttpErrors.HEADERS_TOO_LARGE.code, "oversized");
  watch.assertNoServerFault(t);
  // The server still answers.
  t.is(parseRawAnswer(await sendBytes(running.url, "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")).status, 200);
});

test("bad framing is 400 HTTP_MALFORMED_REQUEST in the error shape, a client fault", async (t) => {
  const { running, watch } = await startApp(t);
  for (const [label, bytes] of BAD_FRAMING) {
    assertErrorShape(t, parseRawAnswer(await sendBytes(running.url, bytes)), 400, HttpErrors.MALFORMED_REQUEST.code, label);
  }
  watch.assertNoServerFault(t);
  t.is(parseRawAnswer(await sendBytes(running.url, "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")).status, 200);
});

test("an Expect other than 100-continue is 417 HTTP_EXPECTATION_FAILED in the error shape; 100-continue still works", async (t) => {
  const { running, watch } = await startApp(t);
  for (const expectation of ["200-ok", "x", "101-switch"]) {
    const bytes = `POST /echo HTTP/1.1\r\nHost: x\r\nExpect: ${expectation}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n`;
    assertErrorShape(t, parseRawAnswer(await sendBytes(running.url, bytes)), 417, HttpErrors.EXPECTATION_FAILED.code, expectation);
  }
  const continued = await sendBytes(running.url, `POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{"a":1}`);
  t.regex(continued, /^HTTP\/1\.1 100 Continue/);
  const answer = parseRawAnswer(continued);
  t.is(answer.status, 200);
  t.deepEqual(JSON.parse(answer.body), { data: { a: 1 } });
  watch.assertNoServerFault(t);
});

test("setupServer's server answers in the error shape too", async (t) => {
  const watch = new ClientFaultWatch();
  const server = await setupServer({ env: { NODE_ENV: "test" }, database: false, logger: watch.logger, port: 0, host: "127.0.0.1", handleSignals: false, addRoutes() {} });
  t.teardown(() => server.stop());
  const url = server.running!.url;
  assertErrorShape(t, parseRawAnswer(await sendBytes(url, OVERSIZED_HEADERS)), 431, HttpErrors.HEADERS_TOO_LARGE.code, "oversized");
  assertErrorShape(t, parseRawAnswer(await sendBytes(url, BAD_FRAMING[0]![1])), 400, HttpErrors.MALFORMED_REQUEST.code, "garbage");
  watch.assertNoServerFault(t);
});

test("a socket port of its own answers in the error shape: parser refusals, and 404 off socket.io's path", async (t) => {
  const { running, watch } = await startApp(t, { socketPort: 0 });
  const socketUrl = running.socketUrl!;
  t.not(socketUrl, running.url);
  assertErrorShape(t, parseRawAnswer(await sendBytes(socketUrl, OVERSIZED_HEADERS)), 431, HttpErrors.HEADERS_TOO_LARGE.code, "oversized");
  assertErrorShape(t, parseRawAnswer(await sendBytes(socketUrl, BAD_FRAMING[1]![1])), 400, HttpErrors.MALFORMED_REQUEST.code, "no colon");
  const notFound = parseRawAnswer(await sendBytes(socketUrl, "GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  t.is(notFound.status, 404);
  t.is((JSON.parse(notFound.body) as { errors: Array<{ code: string }> }).errors[0]!.code, HttpErrors.NOT_FOUND.code);
  watch.assertNoServerFault(t);
});

test("a server of one's own gets the same answers from answerClientErrors, exported from the package root", async (t) => {
  const { answerClientErrors: exported } = await import("../index.js");
  const app = new SvcApp({ env: { NODE_ENV: "test" }, database: false, logger: new ClientFaultWatch().logger, handleSignals: false }).register(routes);
  const server = createServer(await app.build());
  exported(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.teardown(async () => {
    await new Promise((resolve) => server.close(resolve));
    await app.stop();
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  assertErrorShape(t, parseRawAnswer(await sendBytes(url, OVERSIZED_HEADERS)), 431, HttpErrors.HEADERS_TOO_LARGE.code, "oversized");
  const expect = "POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n";
  assertErrorShape(t, parseRawAnswer(await sendBytes(url, expect)), 417, HttpErrors.EXPECTATION_FAILED.code, "expect");
});
