// The auth capability's public surface, re-exported by the package entry's `--- auth` section.
export { authPlugin, type AuthPluginOptions, type GitHubAuthOptions } from "./auth-plugin.js";
export { ACCOUNTS, type Accounts } from "./accounts.js";
export type { SessionAuthOptions, OAuthClientCredentials } from "./session-auth-options.js";
export { AuthErrors, AuthConfigErrors, type AuthErrorKey } from "./errors.js";
export { baseUserPlugin } from "./base-user-plugin.js";
export { isDisabledPlugin } from "./is-disabled-plugin.js";
export { federatedIdentityPlugin, DEFAULT_FEDERATED_FIELD, type FederatedIdentityOptions } from "./federated-identity-plugin.js";
export { githubUserPlugin, GITHUB_FIELDS } from "./github-user-plugin.js";
export { PASSWORD_HASHER, createScryptHasher, type PasswordHasher, type ScryptParameters } from "./password-hasher.js";
export { TokenService, type TokenServiceOptions, type TokenUse } from "./token-service.js";
export { defaultJWTPayload, type GenerateJWTPayload, type SignInResult } from "./jwt-auth-service.js";
export { LoginRateLimiter, type FailureLimit, type LoginRateLimits, type LoginRateLimiterStores } from "./login-rate-limiter.js";
export { FORBIDDEN_PROFILE_FIELDS, type PasswordPolicy } from "./request-body.js";
export type { AuthProvider } from "./auth-environment.js";
export type { UserModel } from "./user-directory.js";
