import test from "ava";
import { atMostEvery } from "./at-most-every.js";

test("runs the first call, drops the calls within the interval, and runs again after it", async (t) => {
  const seen: string[] = [];
  const note = atMostEvery(40, (message: string) => void seen.push(message));
  note("first");
  note("dropped");
  t.deepEqual(seen, ["first"]);
  await new Promise((resolve) => setTimeout(resolve, 60));
  note("again");
  t.deepEqual(seen, ["first", "again"]);
});
