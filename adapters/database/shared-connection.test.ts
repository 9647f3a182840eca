import test from "ava";
import mongoose from "mongoose";
import { startTestDatabase, stopTestDatabase } from "../../hosts/testing.js";
import { acquireDefaultConnection } from "./shared-connection.js";

// The default mongoose connection is shared by every app of a process; one app letting go while
// another takes it (ava runs a file's tests concurrently) must leave the taker connected.

test.after.always(() => stopTestDatabase());

test.serial("a reference taken while the last holder's disconnect is under way gets a connected database", async (t) => {
  const { uri, dbName } = await startTestDatabase();
  // Each delay lands the second acquire at another point of the first one's disconnect.
  for (let ticks = 0; ticks < 12; ticks++) {
    const first = await acquireDefaultConnection({ uri, dbName });
    const releasing = first.release();
    for (let tick = 0; tick < ticks; tick++) await new Promise((resolve) => setImmediate(resolve));
    const second = await acquireDefaultConnection({ uri, dbName });
    await releasing;
    t.is(mongoose.connection.readyState, mongoose.ConnectionStates.connected, `after ${ticks} ticks`);
    t.truthy(await second.connection.db!.command({ ping: 1 }));
    await second.release();
    t.is(mongoose.connection.readyState, mongoose.ConnectionStates.disconnected);
  }
});
