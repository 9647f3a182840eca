import test from "ava";
import { ConsoleMailer } from "./console.js";
import { mailerConformance } from "../conformance/mailer.js";

mailerConformance(test, "console", () => ({ adapter: new ConsoleMailer() }));

test("the console mailer keeps the last messages and logs no body", async (t) => {
  const lines: Array<[string, Record<string, unknown> | undefined]> = [];
  const log = (message: string, meta?: Record<string, unknown>) => lines.push([message, meta]);
  const mailer = new ConsoleMailer({ logger: { debug: log, info: log, warn: log, error: log } });
  await mailer.sendMail({ to: "ada@example.com", subject: "Hi", text: "secret body" });
  t.is(mailer.sent.length, 1);
  t.false(JSON.stringify(lines).includes("secret body"));
});
