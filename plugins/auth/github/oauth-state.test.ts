import test from "ava";
import { AuthErrors } from "../errors.js";
import { OAuthStateSigner } from "./oauth-state.js";

const secret = "session-secret-session-secret-session";

test("a state round-trips", async (t) => {
  const signer = new OAuthStateSigner(secret, "github");
  const nonce = OAuthStateSigner.nonce();
  const state = await signer.sign({ mode: "link", userId: "u1", returnTo: "https://app.example.com/x", nonce, codeChallenge: "abc" });
  t.deepEqual(await signer.verify(state), { mode: "link", userId: "u1", returnTo: "https://app.example.com/x", nonce, codeChallenge: "abc" });
});

test("a forged, foreign or expired state is refused", async (t) => {
  const signer = new OAuthStateSigner(secret, "github");
  const state = await signer.sign({ mode: "login", nonce: "n" });
  const [header, payload, signature] = state.split(".");
  const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
  claims.rt = "https://evil.example/";
  const forged = [header, Buffer.from(JSON.stringify(claims)).toString("base64url"), signature].join(".");

  const expired = await new OAuthStateSigner(secret, "github", 600, () => new Date(Date.now() - 3_600_000)).sign({ mode: "login", nonce: "n" });
  const otherProvider = await new OAuthStateSigner(secret, "google").sign({ mode: "login", nonce: "n" });
  const otherSecret = await new OAuthStateSigner(`${secret}-2`, "github").sign({ mode: "login", nonce: "n" });
  for (const bad of [forged, expired, otherProvider, otherSecret, "", "garbage", undefined, ["x"]]) {
    const error = (await t.throwsAsync(signer.verify(bad))) as { code?: string };
    t.is(error.code, AuthErrors.OAUTH_STATE_INVALID.code);
  }
});
