import test, { type ExecutionContext } from "ava";
import { createServer } from "node:net";
import { io as connectClient, type ManagerOptions, type Socket, type SocketOptions } from "socket.io-client";
import { AUTHENTICATOR, type Authenticator } from "../contracts/authenticator.js";
import { SOCKET_SERVER, type SocketRefusal } from "../contracts/socket-server.js";
import type { SvcPlugin } from "../kernel/plugin.js";
import { TokenMap } from "../test/support/token-map-authentication.js";
import { setupServer } from "./setup-server.js";
import { SvcApp, type SvcAppOptions } from "./svc-app.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const env = { NODE_ENV: "test" };

/** Binds an authenticator, as the auth plugin does. */
function authenticatorPlugin(authenticator: Authenticator): SvcPlugin {
  return {
    name: "test-authenticator",
    register(ctx) {
      ctx.container.bind(AUTHENTICATOR, { useValue: authenticator });
    },
  };
}

/** A plugin using the socket server: answers `whoami` (on `/` and `/chat`) with the socket's user id. */
function whoamiPlugin(log: string[] = []): SvcPlugin {
  return {
    name: "whoami",
    start(ctx) {
      const io = ctx.resolve(SOCKET_SERVER);
      for (const namespace of [io.of("/"), io.of("/chat")]) {
        namespace.on("connection", (socket) => {
          socket.on("whoami", (ack: (id: string | null) => void) => ack(socket.data.user?.id ?? null));
          socket.on("disconnect", () => log.push("socket disconnected"));
        });
      }
    },
    stop() {
      log.push("plugin stopped");
    },
  };
}

async function startApp(t: ExecutionContext, plugins: SvcPlugin[], options: SvcAppOptions = {}) {
  const app = new SvcApp({ env, database: false, logger: silent, port: 0, host: "127.0.0.1", handleSignals: false, ...options });
  for (const plugin of plugins) app.register(plugin);
  const running = await app.start();
  t.teardown(() => app.stop());
  return { app, running };
}

type Outcome = { socket: Socket; connected: true } | { socket: Socket; connected: false; error: Error & { data?: SocketRefusal } };

/** Connects a socket.io client and reports whether the server admitted it. */
async function connect(t: ExecutionContext, url: string, options: Partial<ManagerOptions & SocketOptions> = {}): Promise<Outcome> {
  const socket = connectClient(url, { transports: ["websocket"], reconnection: false, forceNew: true, ...options });
  t.teardown(() => void socket.disconnect());
  return new Promise<Outcome>((resolve) => {
    socket.once("connect", () => resolve({ socket, connected: true }));
    socket.once("connect_error", (error: Error & { data?: SocketRefusal }) => resolve({ socket, connected: false, error }));
  });
}

async function whoami(outcome: Outcome): Promise<string | null> {
  if (!outcome.connected) throw outcome.error;
  return (await outcome.socket.emitWithAck("whoami")) as string | null;
}

test("a valid token (auth.token or Authorization header) reaches handlers as socket.data.user, on every namespace", async (t) => {
  const tokens = new TokenMap();
  const alice = tokens.user("alice");
  const { running } = await startApp(t, [authenticatorPlugin(tokens.authenticator()), whoamiPlugin()]);
  t.is(running.socketUrl, running.url, "sockets share the app's HTTP server by default");

  t.is(await whoami(await connect(t, running.socketUrl!, { auth: { token: alice.token } })), alice.user.id);
  t.is(await whoami(await connect(t, running.socketUrl!, { auth: { token: alice.auth } })), alice.user.id, "a Bearer prefix is accepted");
  t.is(await whoami(await connect(t, running.socketUrl!, { extraHeaders: { Authorization: alice.auth } })), alice.user.id);
  t.is(await whoami(await connect(t, `${running.socketUrl}/chat`, { auth: { token: alice.token } })), alice.user.id);
});

test("a bad token is refused with the app's error shape and the authenticator's code, on every namespace", async (t) => {
  const tokens = new TokenMap();
  const { running } = await startApp(t, [authenticatorPlugin(tokens.authenticator()), whoamiPlugin()]);
  for (const url of [running.socketUrl!, `${running.socketUrl}/chat`]) {
    const outcome = await connect(t, url, { auth: { token: "forged" } });
    t.false(outcome.connected);
    if (outcome.connected) continue;
    t.deepEqual(outcome.error.data, { errors: [{ status: "401", title: "Invalid credentials", code: "TEST_AUTH_INVALID_TOKEN" }] });
    t.is(outcome.error.message, "Invalid credentials");
  }
  const header = await connect(t, running.socketUrl!, { extraHeaders: { Authorization: "Bearer forged" } });
  t.is(header.connected ? undefined : header.error.data?.errors[0]?.code, "TEST_AUTH_INVALID_TOKEN");
});

test("no token: the socket connects anonymously (other Authorization schemes are not ours to judge)", async (t) => {
  const tokens = new TokenMap();
  const { running } = await startApp(t, [authenticatorPlugin(tokens.authenticator()), whoamiPlugin()]);
  t.is(await whoami(await connect(t, running.socketUrl!)), null);
  t.is(await whoami(await connect(t, running.socketUrl!, { auth: { token: "" } })), null);
  t.is(await whoami(await connect(t, running.socketUrl!, { extraHeaders: { Authorization: "Basic dXNlcjpwYXNz" } })), null);
});

test("a token with no AUTHENTICATOR bound is refused with HTTP_UNAUTHENTICATED; anonymous sockets still connect", async (t) => {
  const { running } = await startApp(t, [whoamiPlugin()]);
  const outcome = await connect(t, running.socketUrl!, { auth: { token: "anything" } });
  t.is(outcome.connected ? undefined : outcome.error.data?.errors[0]?.code, "HTTP_UNAUTHENTICATED");
  t.is(await whoami(await connect(t, running.socketUrl!)), null);
});

test("an authenticator that fails unexpectedly refuses with HTTP_INTERNAL and leaks nothing", async (t) => {
  const failing: Authenticator = {
    authenticateToken: async () => {
      throw new Error("user store password is hunter2");
    },
  };
  const { running } = await startApp(t, [authenticatorPlugin(failing), whoamiPlugin()]);
  const outcome = await connect(t, running.socketUrl!, { auth: { token: "t" } });
  t.false(outcome.connected);
  if (outcome.connected) return;
  t.deepEqual(outcome.error.data, { errors: [{ status: "500", title: "Internal server error", code: "HTTP_INTERNAL" }] });
  t.false(JSON.stringify({ message: outcome.error.message, data: outcome.error.data }).includes("hunter2"));
});

test("app.stop() closes the socket server before any plugin stops", async (t) => {
  const tokens = new TokenMap();
  const log: string[] = [];
  const { app, running } = await startApp(t, [authenticatorPlugin(tokens.authenticator()), whoamiPlugin(log)]);
  const outcome = await connect(t, running.socketUrl!, { auth: { token: tokens.user("bob").token } });
  t.true(outcome.connected);
  const disconnected = new Promise<void>((resolve) => outcome.socket.once("disconnect", () => resolve()));

  await app.stop();
  await disconnected;
  t.deepEqual(log, ["socket disconnected", "plugin stopped"]);
  t.false((await connect(t, running.url)).connected, "nothing accepts sockets any more");
});

test("an app whose plugins never resolve SOCKET_SERVER opens no socket server", async (t) => {
  const plain: SvcPlugin = { name: "plain", start() {} };
  const { running } = await startApp(t, [plain]);
  t.is(running.socketUrl, undefined);
  const polling = await fetch(`${running.url}/socket.io/?EIO=4&transport=polling`);
  t.is(polling.status, 404);
  t.is(((await polling.json()) as SocketRefusal).errors[0]?.code, "HTTP_NOT_FOUND");

  // The same request reaches socket.io once a plugin uses it.
  const { running: withSockets } = await startApp(t, [whoamiPlugin()]);
  t.is((await fetch(`${withSockets.url}/socket.io/?EIO=4&transport=polling`)).status, 200);
});

test("sockets.port gives the socket server a port of its own, closed by app.stop()", async (t) => {
  const tokens = new TokenMap();
  const carol = tokens.user("carol");
  const { app, running } = await startApp(t, [authenticatorPlugin(tokens.authenticator()), whoamiPlugin()], { sockets: { port: 0 } });
  t.truthy(running.socketUrl);
  t.not(running.socketUrl, running.url);
  t.is(await whoami(await connect(t, running.socketUrl!, { auth: { token: carol.token } })), carol.user.id);
  t.false((await connect(t, running.url)).connected, "the HTTP port serves no sockets");

  const socketUrl = running.socketUrl!;
  await app.stop();
  t.false((await connect(t, socketUrl)).connected);
});

test("WEBSOCKET_PORT, when set, is where the socket server listens", async (t) => {
  const port = await freePort();
  const { running } = await startApp(t, [whoamiPlugin()], { env: { ...env, WEBSOCKET_PORT: String(port) } });
  t.is(running.socketUrl, `http://127.0.0.1:${port}`);
  t.is(await whoami(await connect(t, running.socketUrl!)), null);
});

test("setupServer apps get the same socket server and authentication", async (t) => {
  const tokens = new TokenMap();
  const dave = tokens.user("dave");
  const server = await setupServer({
    env,
    database: false,
    logger: silent,
    port: 0,
    host: "127.0.0.1",
    handleSignals: false,
    plugins: [authenticatorPlugin(tokens.authenticator()), whoamiPlugin()],
    addRoutes() {},
  });
  t.teardown(() => server.stop());
  const url = server.running!.socketUrl!;
  t.is(await whoami(await connect(t, url, { auth: { token: dave.token } })), dave.user.id);
  const refused = await connect(t, url, { auth: { token: "forged" } });
  t.is(refused.connected ? undefined : refused.error.data?.errors[0]?.code, "TEST_AUTH_INVALID_TOKEN");
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
