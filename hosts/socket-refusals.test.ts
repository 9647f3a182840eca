import test, { type ExecutionContext } from "ava";
import { io as connectClient } from "socket.io-client";
import { HTTP_ROUTER } from "../contracts/http.js";
import { SOCKET_SERVER } from "../contracts/socket-server.js";
import { HttpErrors } from "../kernel/http-errors.js";
import type { SvcPlugin } from "../kernel/plugin.js";
import { startWatchedApp } from "../test/support/client-fault-watch.js";
import { parseRawAnswer, sendBytes } from "../test/support/raw-http.js";

/** A plugin with a route and a socket.io namespace, so the app opens a socket server. */
const plugin: SvcPlugin = {
  name: "socket-and-route",
  start(ctx) {
    ctx.resolve(HTTP_ROUTER).get("/ok", (_req, res) => res.json({ data: "ok" }));
    ctx.resolve(SOCKET_SERVER).on("connection", (socket) => socket.on("ping", (ack: (reply: string) => void) => ack("pong")));
  },
};

async function startApp(t: ExecutionContext, socketPort?: number) {
  const { running, watch } = await startWatchedApp(t, [plugin], socketPort);
  return { url: running.socketUrl!, watch };
}

interface ErrorBody {
  errors: Array<{ status: string; code: string; meta?: { engineCode?: number } }>;
  requestId: string;
}

async function refusal(url: string, bytes: string): Promise<{ status: number; body: ErrorBody; requestIdHeader: string | undefined }> {
  const answer = parseRawAnswer(await sendBytes(url, bytes));
  return { status: answer.status, body: JSON.parse(answer.body) as ErrorBody, requestIdHeader: answer.headers["x-request-id"] };
}

const get = (path: string, headers = "") => `GET ${path} HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`;
const upgrade = (path: string, key = "dGhlIHNhbXBsZSBub25jZQ==") =>
  `GET ${path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`;

/** engine.io's refusals, by its own codes (0 unknown transport, 1 unknown session, 2 bad handshake method, 5 protocol). */
const ENGINE_REFUSALS: ReadonlyArray<[label: string, bytes: string, engineCode: number]> = [
  ["unknown transport", get("/socket.io/?EIO=4&transport=carrier-pigeon"), 0],
  ["unknown session over polling", get("/socket.io/?EIO=4&transport=polling&sid=no-such-session"), 1],
  ["handshake by POST", "POST /socket.io/?EIO=4&transport=polling HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", 2],
  ["protocol 3", get("/socket.io/?EIO=3&transport=polling"), 5],
  ["unknown session over websocket", upgrade("/socket.io/?EIO=4&transport=websocket&sid=no-such-session"), 1],
  ["unknown transport on an upgrade", upgrade("/socket.io/?EIO=4&transport=carrier-pigeon"), 0],
];

for (const port of ["shared", "own"] as const) {
  test(`${port} port: socket.io's transport refusals are 400 HTTP_BAD_REQUEST in the error shape, engine.io's code in meta`, async (t) => {
    const { url, watch } = await startApp(t, port === "own" ? 0 : undefined);
    for (const [label, bytes, engineCode] of ENGINE_REFUSALS) {
      const { status, body, requestIdHeader } = await refusal(url, bytes);
      t.is(status, 400, label);
      t.like(body.errors[0], { status: "400", code: HttpErrors.BAD_REQUEST.code, meta: { engineCode } }, label);
      t.true(body.requestId !== undefined && body.requestId === requestIdHeader, label);
    }
    watch.assertNoServerFault(t);
  });

  test(`${port} port: a malformed websocket handshake, and an upgrade to another path, are 400 in the error shape`, async (t) => {
    const { url, watch } = await startApp(t, port === "own" ? 0 : undefined);
    for (const [label, bytes] of [
      ["a bad Sec-WebSocket-Key", upgrade("/socket.io/?EIO=4&transport=websocket", "not-a-key")],
      ["an upgrade off socket.io's path", upgrade("/ok")],
      ["another protocol", "GET /ok HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n"],
    ] as const) {
      const { status, body } = await refusal(url, bytes);
      t.is(status, 400, label);
      t.is(body.errors[0]!.code, HttpErrors.BAD_REQUEST.code, label);
    }
    watch.assertNoServerFault(t);

    // Real clients still connect, over websocket and long-polling.
    for (const transports of [["websocket"], ["polling"]]) {
      const client = connectClient(url, { transports, reconnection: false, forceNew: true });
      t.teardown(() => void client.disconnect());
      t.is(await client.timeout(10_000).emitWithAck("ping"), "pong", transports[0]);
    }
  });
}
