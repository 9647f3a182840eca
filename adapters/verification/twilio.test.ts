import test from "ava";
import nock from "nock";
import { loopbackOnlyNetwork } from "../../test/support/auth-test-app.js";
import { hasErrorCode } from "../../kernel/errors.js";
import { VerificationAdapterErrors } from "./errors.js";
import { TwilioVerificationSender } from "./twilio.js";
import { verificationConformance } from "../conformance/verification.js";

const SID = `AC${"0".repeat(32)}`;
const SERVICE = `VA${"1".repeat(32)}`;
const API = "https://verify.twilio.com";
const START = `/v2/Services/${SERVICE}/Verifications`;
const CHECK = `/v2/Services/${SERVICE}/VerificationCheck`;

loopbackOnlyNetwork(test);

const verifier = () => new TwilioVerificationSender({ accountSid: SID, authToken: "token", serviceSid: SERVICE, env: {} });
const fieldsOf = (body: string | Record<string, string>) => (typeof body === "string" ? Object.fromEntries(new URLSearchParams(body)) : body);

verificationConformance(test, "twilio", () => ({
  adapter: verifier(),
  approvedCode: "123456",
  arrange: {
    accepted: () => {
      nock(API).post(START).reply(201, { sid: "VE1", status: "pending" });
      nock(API)
        .post(CHECK, (body: string | Record<string, string>) => fieldsOf(body).Code === "123456")
        .reply(200, { sid: "VE1", status: "approved", valid: true });
    },
    permanent: () => void nock(API).post(START).reply(400, { code: 60200, message: "Invalid parameter", status: 400 }),
    transient: () => void nock(API).post(START).reply(429, { code: 20429, message: "Too many requests", status: 429 }),
    config: () => void nock(API).post(START).reply(404, { code: 20404, message: "Service not found", status: 404 }),
    malformed: () => void nock(API).post(START).reply(201, "<html>", { "content-type": "text/html" }),
  },
  arrangeRejectedCheck: () => {
    nock.cleanAll();
    nock(API).post(CHECK).reply(200, { sid: "VE1", status: "pending", valid: false });
  },
  cleanup: () => void nock.cleanAll(),
}));

test.serial("a check without a pending verification (404) is an answered, unapproved check", async (t) => {
  nock(API).post(CHECK).reply(404, { code: 20404, message: "not found", status: 404 });
  t.like(await verifier().checkVerification({ to: "+14155550100", code: "1" }), { accepted: true, approved: false });
});

test("the adapter needs credentials and a service", (t) => {
  t.true(hasErrorCode(t.throws(() => new TwilioVerificationSender({ env: {} })), VerificationAdapterErrors.CREDENTIALS_REQUIRED.code));
  t.true(hasErrorCode(t.throws(() => new TwilioVerificationSender({ accountSid: SID, authToken: "t", env: {} })), VerificationAdapterErrors.SERVICE_REQUIRED.code));
});
