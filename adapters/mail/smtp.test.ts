import test from "ava";
import { createConnection, createServer, type AddressInfo, type Server } from "node:net";
import { SMTPServer } from "smtp-server";
import { hasErrorCode } from "../../kernel/errors.js";
import { MailAdapterErrors } from "./errors.js";
import { SmtpMailer } from "./smtp.js";
import { mailerConformance } from "../conformance/mailer.js";

type Mode = "accept" | "permanent" | "transient" | "config" | "malformed";

/** A real SMTP server (npm smtp-server) behind a TCP front that can answer garbage instead. */
let mode: Mode = "accept";
const received: Array<{ from: string; to: string[]; data: string }> = [];
let smtp: SMTPServer;
let front: Server;
let port = 0;

const smtpError = (message: string, responseCode: number) => Object.assign(new Error(message), { responseCode });

test.before(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth(auth, _session, callback) {
      if (mode === "config") return callback(smtpError("Invalid credentials", 535));
      callback(null, { user: auth.username });
    },
    onRcptTo(address, _session, callback) {
      if (mode === "permanent" || address.address.startsWith("unknown")) return callback(smtpError("No such user", 550));
      if (mode === "transient") return callback(smtpError("Mailbox busy, try later", 451));
      callback();
    },
    onData(stream, session, callback) {
      let data = "";
      stream.on("data", (chunk: Buffer) => (data += chunk.toString()));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          data,
        });
        callback(null);
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", () => resolve()));
  const smtpPort = (smtp.server.address() as AddressInfo).port;
  front = createServer((socket) => {
    if (mode === "malformed") {
      socket.end("this is not smtp\r\n");
      return;
    }
    const upstream = createConnection(smtpPort, "127.0.0.1");
    socket.pipe(upstream).pipe(socket);
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", () => resolve()));
  port = (front.address() as AddressInfo).port;
});

test.after.always(async () => {
  await new Promise<void>((resolve) => front?.close(() => resolve()));
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
});

const mailer = () => new SmtpMailer({ host: "127.0.0.1", port, auth: { user: "svc", pass: "secret" }, fromEmail: "team@example.com", fromName: "Team", timeoutMs: 5000 });
const arrange = (next: Mode) => () => void (mode = next);

mailerConformance(test, "smtp", () => ({
  adapter: mailer(),
  arrange: { accepted: arrange("accept"), permanent: arrange("permanent"), transient: arrange("transient"), config: arrange("config"), malformed: arrange("malformed") },
  cleanup: () => void (mode = "accept"),
}));

test.serial("the mail reaches the server with its sender, recipients and content", async (t) => {
  mode = "accept";
  const before = received.length;
  const result = await mailer().sendMail({ to: ["ada@example.com", "bob@example.com"], subject: "Hello", text: "Plain body", html: "<p>Html body</p>", replyTo: "help@example.com" });
  t.true(result.accepted);
  t.regex(result.providerMessageId!, /@svc\.comms>$/);
  const mail = received[before]!;
  t.is(mail.from, "team@example.com");
  t.deepEqual(mail.to, ["ada@example.com", "bob@example.com"]);
  t.true(mail.data.includes("Subject: Hello"));
  t.true(mail.data.includes("Plain body"));
  t.regex(mail.data, /From: "?Team"? <team@example.com>/);
});

test.serial("an unreachable server is a transient network failure", async (t) => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", () => resolve()));
  const deadPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const result = await new SmtpMailer({ host: "127.0.0.1", port: deadPort, fromEmail: "a@example.com", timeoutMs: 2000 }).sendMail({ to: "b@example.com", text: "x" });
  t.like(result, { accepted: false, errorClass: "transient", errorCode: "network" });
});

test("the adapter needs a host", (t) => {
  t.true(hasErrorCode(t.throws(() => new SmtpMailer({ host: "" })), MailAdapterErrors.SMTP_HOST_REQUIRED.code));
});
