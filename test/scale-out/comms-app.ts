// The app of the comms scale-out tests: auth, comms with a SendGrid mailer whose delivery webhook
// is verified with the key in SVC_SCALE_OUT_WEBHOOK_KEY (the same in both processes), a push
// sender that accepts every token, and a test route that sends a mail through this process. The
// SendGrid API is nock's, in each process.
import { randomUUID } from "node:crypto";
import nock from "nock";
import { HTTP_ROUTER } from "../../contracts/http.js";
import { SendGridMailer } from "../../adapters/mail/sendgrid.js";
import { commsPlugin, COMMS_SERVICE } from "../../plugins/comms/index.js";
import { ScriptedPushSender } from "../../plugins/comms/test-support/scripted-providers.js";
import { authTestApp } from "../support/auth-test-app.js";

/** Active push tokens per user, in this app. */
export const MAX_PUSH_TOKENS = 5;

export async function scaleOutCommsApp(t: { teardown: (fn: () => Promise<void> | void) => void }, database?: { uri: string; dbName: string }) {
  const webhookVerificationKey = process.env.SVC_SCALE_OUT_WEBHOOK_KEY;
  if (!webhookVerificationKey) throw new Error("SVC_SCALE_OUT_WEBHOOK_KEY is the SendGrid webhook's public key");
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  nock("https://api.sendgrid.com")
    .persist()
    .post("/v3/mail/send")
    .reply(() => [202, "", { "x-message-id": randomUUID() }]);
  t.teardown(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });
  const mailer = new SendGridMailer({ apiKey: "SG.k", fromEmail: "team@example.com", webhookVerificationKey, env: { NODE_ENV: "test" } });
  const built = await authTestApp(
    t,
    {},
    {},
    (app) =>
      app.register(commsPlugin({ mail: mailer, push: new ScriptedPushSender("scripted", () => "accept"), maxPushTokensPerUser: MAX_PUSH_TOKENS })).register({
        name: "scale-out-mail",
        dependsOn: ["comms"],
        start(ctx) {
          ctx.resolve(HTTP_ROUTER).post("/scale-out/mail", async (req, res) => {
            const comms = ctx.resolve(COMMS_SERVICE);
            const sent = await comms.sendMail({ to: String(req.body.to), subject: "Hi", text: "x" });
            await comms.flushLog();
            res.json({ data: sent });
          });
        },
      }),
    { port: 0, host: "127.0.0.1", ...(database ? { database } : {}) },
  );
  const running = await built.app.start();
  return { ...built, url: running.url };
}
