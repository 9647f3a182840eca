import test from "ava";
import { ApiError } from "./api-client";
import { CreateAttempts } from "./create-attempts";

// Which saves of a create form count as retries (same key) and which as new records (new key),
// plain functions run in Node; the admin e2e test drops a real answer in Chromium.

const data = { title: "Lamp", tags: ["red"] };
const noAnswer = new ApiError("The server cannot be reached. Check your connection and try again.", 0, []);
const inProgress = new ApiError("Request in progress", 409, [{ status: 409, title: "Request in progress", code: "IDEMPOTENCY_IN_PROGRESS" }]);
const refused = new ApiError("Request validation failed", 400, [{ status: 400, title: "Request validation failed", code: "VALIDATION_INVALID_BODY" }]);

test("a save repeated after no answer, or while the first runs, is its retry: the same key", (t) => {
  const attempts = new CreateAttempts();
  const first = attempts.keyFor("Gadget", data);
  t.regex(first, /^[0-9a-f]{32}$/);
  attempts.failed("Gadget", data, noAnswer);
  t.is(attempts.keyFor("Gadget", { title: "Lamp", tags: ["red"] }), first);
  attempts.failed("Gadget", data, inProgress);
  t.is(attempts.keyFor("Gadget", data), first);
});

test("once answered — created or refused — the same data again is a new record; other data or another model never shares a key", (t) => {
  const attempts = new CreateAttempts();
  const first = attempts.keyFor("Gadget", data);
  t.not(attempts.keyFor("Gadget", { ...data, title: "Desk" }), first);
  t.not(attempts.keyFor("Widget", data), first);
  attempts.answered("Gadget", data);
  const second = attempts.keyFor("Gadget", data);
  t.not(second, first);
  attempts.failed("Gadget", data, refused);
  t.not(attempts.keyFor("Gadget", data), second);
});
