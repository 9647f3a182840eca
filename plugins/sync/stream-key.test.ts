import test from "ava";
import { sameScope, streamRule } from "./stream-key.js";

const user = { id: "u1", _id: "u1" };

test("owner scope: the owner field decides the stream; the caller is in their own", (t) => {
  const rule = streamRule("todos", { type: "owner" }, "ownerId");
  t.is(rule.streamOf({ ownerId: "u1" }), "todos|owner:u1");
  t.is(rule.streamOf({ ownerId: "" }), undefined);
  t.deepEqual(rule.memberStreams(user, ["tenant:x"]), ["todos|owner:u1"]);
});

test("owner scope with a field, tenant, broadcast and custom scopes", (t) => {
  t.is(streamRule("tasks", { type: "owner", field: "assigneeId" }, "ownerId").streamOf({ ownerId: "a", assigneeId: "b" }), "tasks|owner:b");
  const tenant = streamRule("notes", { type: "tenant", field: "orgId" }, "ownerId");
  t.is(tenant.streamOf({ orgId: "acme" }), "notes|tenant:acme");
  t.deepEqual(tenant.memberStreams(user, ["tenant:acme", "team-7"]), ["notes|tenant:acme"]);
  const broadcast = streamRule("news", { type: "broadcast" }, "ownerId");
  t.is(broadcast.streamOf({}), "news|all");
  t.deepEqual(broadcast.memberStreams(user, []), ["news|all"]);
  const custom = streamRule("boards", (doc) => `team-${String(doc.team)}`, "ownerId");
  t.is(custom.kind, "custom");
  t.is(custom.streamOf({ team: 7 }), "boards|team-7");
  t.deepEqual(custom.memberStreams(user, ["team-7"]), ["boards|team-7"]);
});

test("sameScope compares configurations, functions by identity", (t) => {
  const fn = () => "x";
  t.true(sameScope({ type: "tenant", field: "a" }, { type: "tenant", field: "a" }));
  t.false(sameScope({ type: "tenant", field: "a" }, { type: "tenant", field: "b" }));
  t.true(sameScope(fn, fn));
  t.false(sameScope(fn, () => "x"));
});
