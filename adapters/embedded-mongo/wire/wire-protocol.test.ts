import test from "ava";
import { deserialize } from "bson";
import { MongoClient } from "mongodb";
import { startEmbeddedMongo } from "../index.js";
import type { RunningEmbeddedMongo } from "../index.js";
import { opMsg, opQuery, RawWireClient } from "../test-support/raw-wire-client.js";

let server: RunningEmbeddedMongo;
const logged: string[] = [];

test.before(async () => {
  server = await startEmbeddedMongo({
    logger: { error: (message: string) => logged.push(message), warn() {}, info() {}, debug() {} },
  });
});

test.after.always(async () => {
  await server?.stop();
});

/** The server still serves a brand-new driver client. */
async function serverStillAnswers(t: { true(value: boolean): void }): Promise<void> {
  const client = await new MongoClient(server.uri, { serverSelectionTimeoutMS: 5000 }).connect();
  try {
    const reply = await client.db("admin").command({ ping: 1 });
    t.true(reply.ok === 1);
  } finally {
    await client.close();
  }
}

test("legacy OP_QUERY isMaster is answered with an OP_REPLY", async (t) => {
  const raw = await RawWireClient.connect(server.port);
  raw.send(opQuery("admin", { isMaster: 1, helloOk: true }, 42));
  const message = await raw.nextMessage();
  t.is(message.readInt32LE(8), 42);
  t.is(message.readInt32LE(12), 1);
  t.is(message.readInt32LE(32), 1);
  const reply = deserialize(message.subarray(36));
  t.true(reply.ismaster);
  t.true(reply.helloOk);
  t.is(reply.maxWireVersion, 21);
  raw.destroy();
});

test("OP_MSG kind-1 document sequences, moreToCome and the checksum flag", async (t) => {
  const raw = await RawWireClient.connect(server.port);
  raw.send(opMsg({ insert: "seq", $db: "wire_seq" }, { sequences: { documents: [{ _id: 1 }, { _id: 2 }] }, requestId: 7 }));
  const inserted = await raw.nextReply();
  t.is(inserted.n, 2);
  // moreToCome: the server must not reply; the next reply on the socket answers the find.
  raw.send(opMsg({ insert: "seq", documents: [{ _id: 3 }], $db: "wire_seq" }, { flags: 2, requestId: 8 }));
  raw.send(opMsg({ find: "seq", filter: {}, $db: "wire_seq" }, { checksum: true, requestId: 9 }));
  const message = await raw.nextMessage();
  t.is(message.readInt32LE(8), 9);
  const found = deserialize(message.subarray(21));
  t.deepEqual(found.cursor.firstBatch.map((doc: { _id: number }) => doc._id), [1, 2, 3]);
  raw.destroy();
});

test("garbage bytes close that connection and the server keeps serving", async (t) => {
  const raw = await RawWireClient.connect(server.port);
  raw.send(Buffer.from("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  await raw.closed;
  t.true(logged.some((line) => line.includes("invalid message length")));
  await serverStillAnswers(t);
});

test("a 100 MB length header closes the connection at once", async (t) => {
  const raw = await RawWireClient.connect(server.port);
  const header = Buffer.alloc(16);
  header.writeInt32LE(100 * 1024 * 1024, 0);
  header.writeInt32LE(2013, 12);
  raw.send(header);
  await raw.closed;
  await serverStillAnswers(t);
});

test("a truncated message is dropped with its connection", async (t) => {
  const raw = await RawWireClient.connect(server.port);
  const whole = opMsg({ ping: 1, $db: "admin" });
  raw.send(whole.subarray(0, whole.length - 5));
  raw.socket.end();
  await raw.closed;
  await serverStillAnswers(t);
  t.true(logged.some((line) => line.includes("truncated after")));
});

test("a frame whose sections overrun it, or an unknown opcode, closes the connection", async (t) => {
  const overrun = opMsg({ ping: 1, $db: "admin" });
  overrun.writeInt32LE(1000, 21);
  const badSections = await RawWireClient.connect(server.port);
  badSections.send(overrun);
  await badSections.closed;
  const opcode = await RawWireClient.connect(server.port);
  const legacyInsert = opMsg({ ping: 1, $db: "admin" });
  legacyInsert.writeInt32LE(2002, 12);
  opcode.send(legacyInsert);
  await opcode.closed;
  t.true(logged.some((line) => line.includes("unsupported opCode 2002")));
  await serverStillAnswers(t);
});

test("many concurrent clients are served", async (t) => {
  const clients = await Promise.all(Array.from({ length: 20 }, () => RawWireClient.connect(server.port)));
  const replies = await Promise.all(
    clients.map(async (raw, i) => {
      raw.send(opMsg({ insert: "many", documents: [{ i }], $db: "wire_many" }));
      return raw.nextReply();
    }),
  );
  t.true(replies.every((reply) => reply.n === 1));
  for (const raw of clients) raw.destroy();
  const count = await server.engine.runCommand("wire_many", { count: "many" });
  t.is(count.n, 20);
});
