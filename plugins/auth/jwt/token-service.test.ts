import test from "ava";
import { SignJWT, UnsecuredJWT } from "jose";
import { AuthErrors } from "../errors.js";
import { TokenService } from "./token-service.js";

const options = {
  accessSecret: "access-secret-access-secret-access-secret",
  refreshSecret: "refresh-secret-refresh-secret-refresh-secret",
  issuer: "svc-test",
  accessTokenSeconds: 900,
  refreshTokenSeconds: 30 * 86_400,
};

async function rejectsWith(t: import("ava").ExecutionContext, work: Promise<unknown>, code: string): Promise<void> {
  const error = await t.throwsAsync(work);
  t.is((error as { code?: string }).code, code);
  t.is((error as { status?: number }).status, 401);
}

test("an access token round-trips with the user id and host claims", async (t) => {
  const tokens = new TokenService(options);
  const jwt = await tokens.signAccessToken("user-1", { admin: true, role: "editor" });
  const verified = await tokens.verifyAccessToken(jwt);
  t.is(verified.userId, "user-1");
  t.is(verified.claims.admin, true);
  t.is(verified.claims.iss, "svc-test");
  t.is(verified.claims.exp! - verified.claims.iat!, 900);
});

test("host claims cannot override reserved claims", async (t) => {
  const tokens = new TokenService(options);
  const jwt = await tokens.signAccessToken("user-1", { sub: "someone-else", iss: "evil", exp: 9_999_999_999, token_use: "refresh" });
  const verified = await tokens.verifyAccessToken(jwt);
  t.is(verified.userId, "user-1");
  t.is(verified.claims.exp! - verified.claims.iat!, 900);
});

test("a tampered payload is refused", async (t) => {
  const tokens = new TokenService(options);
  const [header, payload, signature] = (await tokens.signAccessToken("user-1", { admin: false })).split(".");
  const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
  claims.admin = true;
  const forged = [header, Buffer.from(JSON.stringify(claims)).toString("base64url"), signature].join(".");
  await rejectsWith(t, tokens.verifyAccessToken(forged), AuthErrors.TOKEN_INVALID.code);
});

test("alg: none is refused", async (t) => {
  const tokens = new TokenService(options);
  const now = Math.floor(Date.now() / 1000);
  const unsigned = new UnsecuredJWT({ token_use: "access" })
    .setIssuer("svc-test")
    .setSubject("user-1")
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .encode();
  await rejectsWith(t, tokens.verifyAccessToken(unsigned), AuthErrors.TOKEN_INVALID.code);
  // The same with a typ header that matches ours.
  const [, payload] = unsigned.split(".");
  const header = Buffer.from(JSON.stringify({ alg: "none", typ: "at+jwt" })).toString("base64url");
  await rejectsWith(t, tokens.verifyAccessToken(`${header}.${payload}.`), AuthErrors.TOKEN_INVALID.code);
});

test("another HMAC algorithm with the right secret is refused (algorithms are pinned)", async (t) => {
  const tokens = new TokenService(options);
  const now = Math.floor(Date.now() / 1000);
  const hs512 = await new SignJWT({ token_use: "access" })
    .setProtectedHeader({ alg: "HS512", typ: "at+jwt" })
    .setIssuer("svc-test")
    .setSubject("user-1")
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .sign(new TextEncoder().encode(options.accessSecret));
  await rejectsWith(t, tokens.verifyAccessToken(hs512), AuthErrors.TOKEN_INVALID.code);
});

test("an expired token is refused as expired", async (t) => {
  const past = new TokenService({ ...options, now: () => new Date(Date.now() - 3_600_000) });
  const jwt = await past.signAccessToken("user-1");
  await rejectsWith(t, new TokenService(options).verifyAccessToken(jwt), AuthErrors.TOKEN_EXPIRED.code);
});

test("an expired refresh token is AUTH_REFRESH_TOKEN_INVALID (AUTH_TOKEN_EXPIRED would make a client refresh again)", async (t) => {
  const past = new TokenService({ ...options, now: () => new Date(Date.now() - 3_600_000 - options.refreshTokenSeconds * 1000) });
  const { token } = await past.signRefreshToken("user-1", "family", "token");
  await rejectsWith(t, new TokenService(options).verifyRefreshToken(token), AuthErrors.REFRESH_TOKEN_INVALID.code);
});

test("a token from another issuer is refused", async (t) => {
  const other = new TokenService({ ...options, issuer: "someone-else" });
  const jwt = await other.signAccessToken("user-1");
  await rejectsWith(t, new TokenService(options).verifyAccessToken(jwt), AuthErrors.TOKEN_INVALID.code);
});

test("a token signed with another secret is refused", async (t) => {
  const other = new TokenService({ ...options, accessSecret: "a-completely-different-secret-value-xx" });
  const jwt = await other.signAccessToken("user-1");
  await rejectsWith(t, new TokenService(options).verifyAccessToken(jwt), AuthErrors.TOKEN_INVALID.code);
});

test("a refresh token is not an access token and vice versa", async (t) => {
  const tokens = new TokenService(options);
  const { token: refresh } = await tokens.signRefreshToken("user-1", "family-1", "token-1");
  await rejectsWith(t, tokens.verifyAccessToken(refresh), AuthErrors.TOKEN_INVALID.code);
  const access = await tokens.signAccessToken("user-1");
  await rejectsWith(t, tokens.verifyRefreshToken(access), AuthErrors.REFRESH_TOKEN_INVALID.code);

  // Even with one shared secret the token_use claim and typ header keep them apart.
  const shared = new TokenService({ ...options, refreshSecret: options.accessSecret });
  const { token: sharedRefresh } = await shared.signRefreshToken("user-1", "family-1", "token-1");
  await rejectsWith(t, shared.verifyAccessToken(sharedRefresh), AuthErrors.TOKEN_INVALID.code);
  await rejectsWith(t, shared.verifyRefreshToken(await shared.signAccessToken("user-1")), AuthErrors.REFRESH_TOKEN_INVALID.code);
});

test("a refresh token carries its family and id", async (t) => {
  const tokens = new TokenService(options);
  const { token, expiresAt } = await tokens.signRefreshToken("user-1", "family-1", "token-1");
  const verified = await tokens.verifyRefreshToken(token);
  t.deepEqual({ ...verified, expiresAt: verified.expiresAt.getTime() }, {
    userId: "user-1",
    familyId: "family-1",
    tokenId: "token-1",
    expiresAt: expiresAt.getTime(),
  });
});

test("garbage is refused", async (t) => {
  const tokens = new TokenService(options);
  for (const garbage of ["", "abc", "a.b.c", "x".repeat(10_000)]) {
    await rejectsWith(t, tokens.verifyAccessToken(garbage), AuthErrors.TOKEN_INVALID.code);
  }
});
