import test from "ava";
import { ErrorCodes } from "./engine-error.js";
import { engineFor, runOk } from "./test-support/in-process-engine.js";

test("every code has one official name (a code listed twice would lose a name)", (t) => {
  const codes = Object.values(ErrorCodes);
  t.is(new Set(codes).size, codes.length);
});

test("errors mongod names carry its codeName, not Location<code>", async (t) => {
  const engine = engineFor(t);
  const members = [0, 1, 2].map((_id) => ({ _id, host: `127.0.0.1:${27017 + _id}` }));
  t.like(await engine.runCommand("admin", { replSetInitiate: { _id: "svc-rs", members } }), {
    ok: 0,
    code: 93,
    codeName: "InvalidReplicaSetConfig",
  });
  await runOk(engine, "admin", { replSetInitiate: 1 });
  t.like(await engine.runCommand("admin", { replSetInitiate: 1 }), { ok: 0, code: 23, codeName: "AlreadyInitialized" });
  t.like(await engine.runCommand("admin", { configureFailPoint: "noSuchPoint", mode: "alwaysOn" }), {
    ok: 0,
    code: 266,
    codeName: "FailPointSetFailed",
  });
});
