import test from "ava";
import request from "supertest";
import { createTestApp, stopTestDatabase } from "../hosts/testing.js";
import { HTTP_ROUTER, idempotent, type SvcPlugin } from "../index.js";
test.after.always(() => stopTestDatabase());
test("x", async (t) => {
  const plugin: SvcPlugin = { name: "p", start(ctx) {
    ctx.resolve(HTTP_ROUTER).post("/x", idempotent(ctx), async (_req, res) => {
      res.status(201).json({ done: true });
      throw new Error("after");
    });
  } };
  const app = (await createTestApp()).register(plugin);
  const http = await app.build();
  t.teardown(() => app.stop());
  const first = await request(http).post("/x").set("Idempotency-Key", "a").send({}).timeout(3000);
  console.log(first.status, first.text);
  const second = await request(http).post("/x").set("Idempotency-Key", "a").send({}).timeout(3000);
  console.log(second.status, second.headers, second.text);
  t.pass();
});
