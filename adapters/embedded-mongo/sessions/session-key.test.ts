import test from "ava";
import { Binary, Long, ObjectId, UUID } from "bson";
import { equalityKey } from "../query/index.js";
import { sessionKeyOf } from "./session-key.js";

test("session keys are equal exactly when the lsid ids are equal", (t) => {
  const seen = new Set<string>();
  for (let i = 0; i < 500; i++) {
    const id = new UUID();
    const key = sessionKeyOf({ id });
    t.is(sessionKeyOf({ id: new UUID(id.toHexString()) }), key, "same UUID, another object");
    t.false(seen.has(key));
    seen.add(key);
  }
  const others = ["session-1", 7, new ObjectId(), Long.fromNumber(3), new Binary(Buffer.from("abc"), 4), new Binary(Buffer.alloc(16), 3), undefined];
  for (const id of others) t.is(sessionKeyOf({ id }), equalityKey(id), "non-UUID ids fall back to equalityKey");
  t.not(sessionKeyOf({ id: new UUID(Buffer.alloc(16)) }), sessionKeyOf({ id: new Binary(Buffer.alloc(16), 3) }), "subtypes differ");
});
