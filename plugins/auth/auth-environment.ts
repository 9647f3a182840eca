import type { SvcConfig } from "../../kernel/config.js";
import { bool, makeValidator, readEnvironment, str, type Environment } from "../../kernel/environment.js";
import { durationSeconds } from "../../kernel/duration.js";
import { developmentAuthEnvironment, type DevelopmentDefaults } from "./development-secrets.js";
import { AuthErrors } from "./errors.js";

/** Secrets shorter than this are refused in production. */
export const MIN_PRODUCTION_SECRET_LENGTH = 32;

export type AuthProvider = "jwt" | "session-auth";

/** The auth variables of SPEC §5, parsed and checked. */
export interface AuthEnvironment {
  readonly provider: AuthProvider;
  readonly signupDisabled: boolean;
  /** Present when `provider` is `jwt`. */
  readonly jwt?: {
    readonly tokenSecret: string;
    readonly refreshTokenSecret: string;
    readonly sessionSecret: string;
    readonly issuer: string;
    /** `TOKEN_AUDIENCE`: the `aud` every token carries and must carry; none when unset. */
    readonly audience?: string;
    readonly accessTokenSeconds: number;
    readonly refreshTokenSeconds: number;
  };
  /** Present when `provider` is `session-auth`. */
  readonly sessionAuth?: {
    readonly secret: string;
    readonly url: string;
    readonly providers: Readonly<Partial<Record<"github" | "google" | "apple", { clientId: string; clientSecret: string }>>>;
  };
  /** Present when a development run filled in variables nobody set (generated secrets, the development issuer). */
  readonly developmentDefaults?: DevelopmentDefaults;
}

/** Values given in code (plugin options) win over variables. */
export interface AuthEnvironmentOverrides {
  provider?: AuthProvider;
  /** The provider when neither `provider` nor `AUTH_PROVIDER` names one (default `jwt`). */
  defaultProvider?: AuthProvider;
  sessionAuthSecret?: string;
  sessionAuthUrl?: string;
}

const optional = { default: undefined };

/**
 * Reads the auth variables from the app's environment. Missing or malformed variables fail the
 * start with one `CONFIG_INVALID_ENVIRONMENT` error naming each of them (a blank value counts as
 * unset, and `SESSION_AUTH_URL` must be an http(s) URL); equal secrets and, in production, secrets
 * shorter than 32 characters besides surrounding spaces fail with `AUTH_SAME_SECRETS` and
 * `AUTH_WEAK_SECRET`.
 *
 * @example
 * const env = readAuthEnvironment(ctx.config);
 * env.jwt?.accessTokenSeconds; // 900 unless TOKEN_EXPIRES_IN says otherwise
 */
export function readAuthEnvironment(config: SvcConfig, overrides: AuthEnvironmentOverrides = {}): AuthEnvironment {
  const { AUTH_PROVIDER: providerFromEnv } = readEnvironment(config.env, {
    AUTH_PROVIDER: str({ choices: ["jwt", "session-auth"], default: overrides.defaultProvider ?? "jwt" }),
  });
  const provider = overrides.provider ?? (providerFromEnv as AuthProvider);
  const isJwt = provider === "jwt";
  const isSession = provider === "session-auth";
  // Development only (never production or tests): unset secrets come from a generated file, so
  // sign-ins survive restarts without any set-up.
  const development =
    config.nodeEnv === "development"
      ? developmentAuthEnvironment(config.env, { jwt: isJwt, sessionAuth: isSession && !overrides.sessionAuthSecret })
      : { env: config.env, filled: undefined };
  const env = readEnvironment(blanksUnset(development.env), {
    TOKEN_SECRET: str({ default: undefined, requiredWhen: () => isJwt }),
    TOKEN_ISSUER: str({ default: undefined, requiredWhen: () => isJwt }),
    TOKEN_AUDIENCE: str({ default: undefined }),
    REFRESH_TOKEN_SECRET: str({ default: undefined, requiredWhen: () => isJwt }),
    SESSION_SECRET: str({ default: undefined, requiredWhen: () => isJwt }),
    TOKEN_EXPIRES_IN: durationSeconds({ default: 15 * 60 }),
    REFRESH_TOKEN_EXPIRES_IN: durationSeconds({ default: 30 * 86_400 }),
    SIGNUP_DISABLED: bool({ default: false }),
    SESSION_AUTH_SECRET: str({ default: undefined, requiredWhen: () => isSession && !overrides.sessionAuthSecret }),
    SESSION_AUTH_URL: httpUrl({ default: undefined, requiredWhen: () => isSession && !overrides.sessionAuthUrl }),
    GITHUB_CLIENT_ID: str(optional),
    GITHUB_CLIENT_SECRET: str(optional),
    GOOGLE_CLIENT_ID: str(optional),
    GOOGLE_CLIENT_SECRET: str(optional),
    APPLE_CLIENT_ID: str(optional),
    APPLE_CLIENT_SECRET: str(optional),
  });

  const secrets: Array<[string, string | undefined]> = [];
  let jwt: AuthEnvironment["jwt"];
  if (isJwt) {
    jwt = {
      tokenSecret: env.TOKEN_SECRET!,
      refreshTokenSecret: env.REFRESH_TOKEN_SECRET!,
      sessionSecret: env.SESSION_SECRET!,
      issuer: env.TOKEN_ISSUER!,
      ...(env.TOKEN_AUDIENCE ? { audience: env.TOKEN_AUDIENCE } : {}),
      accessTokenSeconds: env.TOKEN_EXPIRES_IN,
      refreshTokenSeconds: env.REFRESH_TOKEN_EXPIRES_IN,
    };
    // One secret per purpose: a leaked or confused key must not mint the other kind of token.
    if (jwt.tokenSecret === jwt.refreshTokenSecret) throw AuthErrors.SAME_SECRETS("TOKEN_SECRET", "REFRESH_TOKEN_SECRET");
    if (jwt.sessionSecret === jwt.tokenSecret) throw AuthErrors.SAME_SECRETS("SESSION_SECRET", "TOKEN_SECRET");
    if (jwt.sessionSecret === jwt.refreshTokenSecret) throw AuthErrors.SAME_SECRETS("SESSION_SECRET", "REFRESH_TOKEN_SECRET");
    secrets.push(["TOKEN_SECRET", jwt.tokenSecret], ["REFRESH_TOKEN_SECRET", jwt.refreshTokenSecret], ["SESSION_SECRET", jwt.sessionSecret]);
  }

  let sessionAuth: AuthEnvironment["sessionAuth"];
  if (isSession) {
    const providers: Partial<Record<"github" | "google" | "apple", { clientId: string; clientSecret: string }>> = {};
    const pair = (id: string | undefined, secret: string | undefined) =>
      id && secret ? { clientId: id, clientSecret: secret } : undefined;
    const github = pair(env.GITHUB_CLIENT_ID, env.GITHUB_CLIENT_SECRET);
    const google = pair(env.GOOGLE_CLIENT_ID, env.GOOGLE_CLIENT_SECRET);
    const apple = pair(env.APPLE_CLIENT_ID, env.APPLE_CLIENT_SECRET);
    if (github) providers.github = github;
    if (google) providers.google = google;
    if (apple) providers.apple = apple;
    sessionAuth = {
      secret: overrides.sessionAuthSecret ?? env.SESSION_AUTH_SECRET!,
      url: overrides.sessionAuthUrl ?? env.SESSION_AUTH_URL!,
      providers,
    };
    secrets.push(["SESSION_AUTH_SECRET", sessionAuth.secret]);
  }

  if (config.isProduction) {
    for (const [name, value] of secrets) {
      // Spaces around a secret add nothing an attacker has to guess.
      if ((value ?? "").trim().length < MIN_PRODUCTION_SECRET_LENGTH) throw AuthErrors.WEAK_SECRET(name, MIN_PRODUCTION_SECRET_LENGTH);
    }
  }
  return { provider, signupDisabled: env.SIGNUP_DISABLED, jwt, sessionAuth, developmentDefaults: development.filled };
}

/** This API's public URL (better-auth's `baseURL`): an absolute http(s) URL. */
const httpUrl = makeValidator<string>((input: string) => {
  const protocol = URL.canParse(input) ? new URL(input).protocol : undefined;
  if (protocol !== "http:" && protocol !== "https:") throw new Error(`must be an http(s) URL, got "${input}"`);
  return input;
});

/**
 * The environment with blank values removed: `TOKEN_ISSUER=` in a .env file (or only spaces)
 * means "not set", so a required variable fails by name instead of signing with nothing.
 */
function blanksUnset(env: Environment): Environment {
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value?.trim() ? value : undefined]));
}
