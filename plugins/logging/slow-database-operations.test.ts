import test from "ava";
import { EventEmitter } from "node:events";
import { createSvcLogger } from "./create-logger.js";
import { LogCapture } from "./log-capture.js";
import { runWithRequestContext } from "../../kernel/request-context.js";
import { monitorSlowDatabaseOperations, type CommandEventSource } from "./slow-database-operations.js";

function setup(thresholdMs: number) {
  const capture = new LogCapture();
  const logger = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] });
  const client = new EventEmitter();
  const stop = monitorSlowDatabaseOperations(client as unknown as CommandEventSource, { thresholdMs, logger });
  return { capture, client, stop };
}

test("only operations above the threshold are logged, in the scope that issued them", (t) => {
  const { capture, client } = setup(1000);
  runWithRequestContext({ requestId: "req-db" }, () =>
    client.emit("commandStarted", { requestId: 7, commandName: "aggregate", databaseName: "app", command: { aggregate: "orders", pipeline: [] } }),
  );
  client.emit("commandStarted", { requestId: 8, commandName: "find", databaseName: "app", command: { find: "users" } });
  client.emit("commandSucceeded", { requestId: 8, commandName: "find", duration: 1000 });
  client.emit("commandSucceeded", { requestId: 7, commandName: "aggregate", duration: 1500.25 });
  t.is(capture.lines.length, 1);
  t.like(capture.lines[0], { collection: "orders", operation: "aggregate", durationMs: 1500.3, requestId: "req-db" });
});

test("failed and getMore operations name their collection; heartbeats are ignored", (t) => {
  const { capture, client } = setup(10);
  client.emit("commandStarted", { requestId: 1, commandName: "getMore", databaseName: "app", command: { getMore: 123n, collection: "events" } });
  client.emit("commandFailed", { requestId: 1, commandName: "getMore", duration: 50 });
  client.emit("commandStarted", { requestId: 2, commandName: "hello", databaseName: "admin", command: { hello: 1 } });
  client.emit("commandSucceeded", { requestId: 2, commandName: "hello", duration: 5000 });
  t.is(capture.lines.length, 1);
  t.like(capture.lines[0], { collection: "events", operation: "getMore", failed: true });
});

test("awaitData getMores (change streams waiting for events) are not slow operations", (t) => {
  const { capture, client } = setup(1000);
  client.emit("commandStarted", { requestId: 3, commandName: "getMore", databaseName: "app", command: { getMore: 9n, collection: "featureflags", maxTimeMS: 1000 } });
  client.emit("commandSucceeded", { requestId: 3, commandName: "getMore", duration: 1004 });
  t.is(capture.lines.length, 0);
});

test("getMores on change-stream cursors are not slow operations, until the cursor is gone", (t) => {
  const { capture, client } = setup(1000);
  client.emit("commandStarted", { requestId: 20, commandName: "aggregate", databaseName: "app", command: { aggregate: "flags", pipeline: [{ $changeStream: {} }] } });
  client.emit("commandSucceeded", { requestId: 20, commandName: "aggregate", duration: 3, reply: { cursor: { id: 77n, firstBatch: [] } } });
  // A plain cursor on the same collection is still measured.
  client.emit("commandStarted", { requestId: 21, commandName: "find", databaseName: "app", command: { find: "flags" } });
  client.emit("commandSucceeded", { requestId: 21, commandName: "find", duration: 2, reply: { cursor: { id: 78n, firstBatch: [] } } });
  client.emit("commandStarted", { requestId: 22, commandName: "getMore", databaseName: "app", command: { getMore: 77n, collection: "flags" } });
  client.emit("commandSucceeded", { requestId: 22, commandName: "getMore", duration: 1003, reply: { cursor: { id: 77n, nextBatch: [] } } });
  client.emit("commandStarted", { requestId: 23, commandName: "getMore", databaseName: "app", command: { getMore: 78n, collection: "flags" } });
  client.emit("commandSucceeded", { requestId: 23, commandName: "getMore", duration: 1500, reply: { cursor: { id: 0n, nextBatch: [] } } });
  t.deepEqual(capture.lines.map((line) => line.operation), ["getMore"]);
  t.like(capture.lines[0], { durationMs: 1500 });
  // Once the stream's cursor died, a later cursor reusing the id would be measured again.
  client.emit("commandStarted", { requestId: 24, commandName: "getMore", databaseName: "app", command: { getMore: 77n, collection: "flags" } });
  client.emit("commandFailed", { requestId: 24, commandName: "getMore", duration: 1 });
  client.emit("commandStarted", { requestId: 25, commandName: "getMore", databaseName: "app", command: { getMore: 77n, collection: "flags" } });
  client.emit("commandSucceeded", { requestId: 25, commandName: "getMore", duration: 2000, reply: { cursor: { id: 0n, nextBatch: [] } } });
  t.is(capture.lines.length, 2);
});

test("stopping removes the listeners", (t) => {
  const { client, stop } = setup(10);
  stop();
  t.is(client.listenerCount("commandStarted") + client.listenerCount("commandSucceeded") + client.listenerCount("commandFailed"), 0);
});
