import test from "ava";
import mongoose from "mongoose";
import { Permissions, modelRouter } from "../plugins/rest/index.js";
import { authTestApp } from "../test/support/auth-test-app.js";
import { LogCapture } from "../plugins/logging/log-capture.js";
import { createSvcLogger } from "../plugins/logging/create-logger.js";
import { createTestApp, stopTestDatabase } from "./testing.js";

const Note = mongoose.model("WarningNote", new mongoose.Schema({ text: String }, { strict: "throw" }));
const MISSING_AUTH = /need a signed-in user \(\/notes\).*authPlugin/;

test.after.always(() => stopTestDatabase());

async function warningsOf(permissions: Parameters<typeof modelRouter>[2]["permissions"]): Promise<string[]> {
  const logs = new LogCapture();
  const logger = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [logs] });
  const app = (await createTestApp({ logger })).register(modelRouter("/notes", Note, { permissions }));
  await app.build();
  await app.stop();
  return logs.lines.filter((line) => line.level === "warn").map((line) => String(line.message));
}

test("routes that need a user and no authentication registered: one warning naming the routes and the fix", async (t) => {
  const warnings = await warningsOf({ list: [Permissions.IsAny], create: [Permissions.IsAuthenticated] });
  t.is(warnings.filter((line) => MISSING_AUTH.test(line)).length, 1, warnings.join("\n"));
});

test("public routes alone do not warn", async (t) => {
  const warnings = await warningsOf({ list: [Permissions.IsAny], read: [Permissions.IsAny] });
  t.false(warnings.some((line) => MISSING_AUTH.test(line)));
});

test("with the auth plugin registered nothing is said", async (t) => {
  const { logs } = await authTestApp(t, {}, {}, (app) =>
    app.register(modelRouter("/notes", Note, { permissions: { list: [Permissions.IsAuthenticated] } })),
  );
  t.false(logs.lines.some((line) => MISSING_AUTH.test(String(line.message))));
});
