import test from "ava";
import { hasErrorCode, SvcApp } from "../../index.js";
import { ConfigErrors } from "../../kernel/environment.js";
import { JWT_ENV, SESSION_ENV, TestUser } from "../../test/support/auth-test-app.js";
import { authPlugin, AuthErrors } from "./index.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const PRODUCTION = { NODE_ENV: "production", DB_URI: "mongodb://127.0.0.1:1/unused" };
const secret = (letter: string) => letter.repeat(48);
const JWT_PRODUCTION = { TOKEN_SECRET: secret("a"), REFRESH_TOKEN_SECRET: secret("b"), SESSION_SECRET: secret("c"), TOKEN_ISSUER: "blog" };

/** Registers an app with the auth plugin (no I/O: configuration is read in `register`). */
function register(env: Record<string, string>): unknown {
  const app = new SvcApp({ env, logger: silent, handleSignals: false }).register(authPlugin({ userModel: TestUser }));
  try {
    app.kernel.register();
    return undefined;
  } catch (error) {
    return error;
  }
}

test("a production configuration with every auth variable set registers", (t) => {
  t.is(register({ ...PRODUCTION, ...JWT_PRODUCTION }), undefined);
  t.is(register({ ...PRODUCTION, ...SESSION_ENV, SESSION_AUTH_SECRET: secret("s"), SESSION_AUTH_URL: "https://api.example.com" }), undefined);
});

test("a blank TOKEN_ISSUER or secret counts as unset and fails the start by name", (t) => {
  for (const [name, value] of [["TOKEN_ISSUER", ""], ["TOKEN_ISSUER", "  "], ["TOKEN_SECRET", " ".repeat(32)], ["SESSION_SECRET", ""]] as const) {
    for (const environment of [PRODUCTION, { NODE_ENV: "test" }]) {
      const error = register({ ...environment, ...JWT_PRODUCTION, [name]: value });
      const label = `${environment.NODE_ENV} ${name}=${JSON.stringify(value)}`;
      t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT), label);
      t.regex((error as Error).message, new RegExp(`${name}: required but not set`), label);
    }
  }
});

test("in production a secret padded with spaces to 32 characters is weak", (t) => {
  const error = register({ ...PRODUCTION, ...JWT_PRODUCTION, TOKEN_SECRET: `${"x".repeat(20)}${" ".repeat(20)}` });
  t.true(hasErrorCode(error, AuthErrors.WEAK_SECRET));
  t.regex((error as Error).message, /TOKEN_SECRET/);
});

test("SESSION_AUTH_URL must be an http(s) URL", (t) => {
  for (const url of ["not a url", "api.example.com", "ftp://api.example.com", ""]) {
    for (const environment of [PRODUCTION, { NODE_ENV: "test" }]) {
      const error = register({ ...environment, ...SESSION_ENV, SESSION_AUTH_SECRET: secret("s"), SESSION_AUTH_URL: url });
      t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT), `${environment.NODE_ENV} ${url}`);
      t.regex((error as Error).message, /SESSION_AUTH_URL/);
    }
  }
  t.is(register({ NODE_ENV: "test", ...JWT_ENV, SESSION_AUTH_URL: "http://localhost:3000" }), undefined);
});
