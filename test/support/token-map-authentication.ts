import type { RequestHandler } from "express";
import mongoose from "mongoose";
import { APIError } from "../../kernel/api-error.js";
import type { RequestUser } from "../../contracts/request-user.js";
import type { Authenticator } from "../../contracts/authenticator.js";
import { AUTHENTICATION_MIDDLEWARE } from "../../contracts/http.js";
import type { SvcPlugin } from "../../kernel/plugin.js";

/**
 * An in-memory authentication adapter for tests: maps bearer tokens to users. No
 * `Authorization` header → anonymous; an unknown token, a malformed header or a disabled user →
 * 401 (`TEST_AUTH_INVALID_TOKEN`). Bind it in place of the real auth plugin:
 *
 * @example
 * const tokens = new TokenMap();
 * const alice = tokens.user("alice");            // { token, user }
 * const admin = tokens.user("root", { admin: true });
 * const app = (await createTestApp()).override(AUTHENTICATION_MIDDLEWARE, { useValue: tokens.middleware() });
 * await request(http).get("/todos").set("Authorization", `Bearer ${alice.token}`);
 */
export class TokenMap {
  readonly tokens = new Map<string, RequestUser>();
  private count = 0;

  /** Creates a user with a fresh ObjectId and a token for it. */
  user(name: string, fields: Partial<RequestUser> = {}): { token: string; user: RequestUser; auth: string } {
    const _id = new mongoose.Types.ObjectId();
    const user: RequestUser = { id: _id.toHexString(), _id, email: `${name}@example.test`, ...fields };
    const token = `token-${name}-${++this.count}-${_id.toHexString()}`;
    this.tokens.set(token, user);
    return { token, user, auth: `Bearer ${token}` };
  }

  middleware(): RequestHandler {
    return tokenMapAuthentication(this.tokens);
  }

  /** The same map as an `AUTHENTICATOR` (what socket handshakes go through). */
  authenticator(): Authenticator {
    return {
      authenticateToken: async (token) => {
        const user = this.tokens.get(token);
        if (!user || user.disabled === true) throw invalidToken();
        return user;
      },
    };
  }

  /**
   * A plugin that fills the authentication hook with this map — for hosts where `override` is
   * out of reach (`setupServer({plugins: [tokens.plugin()]})`).
   */
  plugin(): SvcPlugin {
    const middleware = this.middleware();
    return {
      name: "test-token-authentication",
      register(ctx) {
        ctx.container.override(AUTHENTICATION_MIDDLEWARE, { useValue: middleware });
      },
    };
  }
}

/**
 * The middleware behind `TokenMap`: sets `req.user` from a bearer token found in `tokens`.
 *
 * @example
 * app.override(AUTHENTICATION_MIDDLEWARE, { useValue: tokenMapAuthentication(new Map([["t1", user]])) });
 */
export function tokenMapAuthentication(tokens: ReadonlyMap<string, RequestUser>): RequestHandler {
  return function testTokenAuthentication(req, _res, next) {
    const header = req.headers.authorization;
    if (header === undefined) return next();
    const match = /^Bearer ([^\s]+)$/.exec(header);
    const user = match ? tokens.get(match[1]!) : undefined;
    if (!user || user.disabled === true) return next(invalidToken());
    req.user = user;
    next();
  };
}

function invalidToken(): APIError {
  return new APIError({ status: 401, title: "Invalid credentials", code: "TEST_AUTH_INVALID_TOKEN" });
}
