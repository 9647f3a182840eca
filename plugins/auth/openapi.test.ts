import test from "ava";
import request from "supertest";
import { stopTestDatabase } from "../../hosts/testing.js";
import { authTestApp, loopbackOnlyNetwork, SESSION_ENV } from "../../test/support/auth-test-app.js";

loopbackOnlyNetwork(test);
test.after.always(() => stopTestDatabase());

type Document = { paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>; tags?: Array<{ name: string; description?: string }> };

const GITHUB = { clientId: "gh-client", clientSecret: "gh-secret", callbackURL: "http://localhost:3000/auth/github/callback", allowedReturnOrigins: ["https://app.example.com"] };

/** `"METHOD /path": operationId` for every auth operation, and the tags they carry. */
function authOperations(document: Document) {
  const ids: Record<string, string | undefined> = {};
  const tags = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.includes("/auth")) continue;
    for (const [method, operation] of Object.entries(item)) {
      ids[`${method.toUpperCase()} ${path}`] = operation.operationId;
      for (const tag of operation.tags ?? []) tags.add(tag);
    }
  }
  return { ids, tags: [...tags] };
}

test("JWT and GitHub routes carry stable operation ids and the one auth tag", async (t) => {
  const { http } = await authTestApp(t, { githubAuth: GITHUB });
  const document = (await request(http).get("/openapi.json").expect(200)).body as Document;
  const { ids, tags } = authOperations(document);
  t.deepEqual(ids, {
    "POST /auth/signup": "signUp",
    "POST /auth/login": "logIn",
    "POST /auth/refresh_token": "refreshToken",
    // The same id as session auth's sign-out: clients sign out of either provider alike.
    "POST /auth/logout": "logOut",
    "POST /auth/logout_all": "logOutEverywhere",
    "GET /auth/sign_ins": "listSignIns",
    "DELETE /auth/sign_ins/{id}": "endSignIn",
    "POST /auth/change_password": "changePassword",
    "GET /auth/me": "readMe",
    "PATCH /auth/me": "updateMe",
    "GET /auth/github": "startGitHubSignIn",
    "GET /auth/github/callback": "finishGitHubSignIn",
    "POST /auth/github/token": "redeemGitHubAuthCode",
    "GET /auth/github/link": "startGitHubLink",
    "POST /auth/github/link": "linkGitHub",
    "DELETE /auth/github/unlink": "unlinkGitHub",
  });
  t.deepEqual(tags, ["auth"]);
  t.is(document.tags?.filter((tag) => tag.name === "auth").length, 1);
  t.truthy(document.tags?.find((tag) => tag.name === "auth")?.description);
});

test("session routes share the sign-up, sign-in and sign-in list ids, so clients call either provider alike", async (t) => {
  const { http } = await authTestApp(t, { sessionAuth: { trustedOrigins: ["https://app.example.com"] } }, SESSION_ENV);
  const document = (await request(http).get("/openapi.json").expect(200)).body as Document;
  const { ids, tags } = authOperations(document);
  t.deepEqual(ids, {
    "POST /api/auth/signup/email": "signUp",
    "POST /api/auth/signin/email": "logIn",
    "GET /api/auth/signin/{provider}": "startSocialSignIn",
    "GET /api/auth/callback/{provider}": "finishSocialSignIn",
    "POST /api/auth/signout": "logOut",
    "GET /api/auth/session": "readSession",
    "GET /api/auth/sessions": "listSignIns",
    "DELETE /api/auth/sessions/{id}": "endSignIn",
  });
  t.deepEqual(tags, ["auth"]);
});

test("profile fields are documented with their type on the user model", async (t) => {
  const { http } = await authTestApp(t, { profileFields: ["name"] });
  type Body = { requestBody: { content: { "application/json": { schema: { properties: Record<string, { type?: unknown; description?: string }> } } } } };
  const paths = (await request(http).get("/openapi.json").expect(200)).body.paths as Record<string, Record<string, Body>>;
  const signup = paths["/auth/signup"]!.post!.requestBody.content["application/json"].schema.properties;
  const update = paths["/auth/me"]!.patch!.requestBody.content["application/json"].schema.properties;
  for (const properties of [signup, update]) {
    t.true(JSON.stringify(properties.name?.type ?? "").includes("string"), JSON.stringify(properties.name));
    t.is(properties.name?.description, "Display name");
  }
});
