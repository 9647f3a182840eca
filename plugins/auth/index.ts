// The auth capability's public surface, re-exported by the package entry's `--- auth` section.
// Other plugins import auth only through this file; admin and comms need only the ports
// (ACCOUNTS, PASSWORD_HASHER, AUTHENTICATOR), which live in contracts/.
export { authPlugin, type AuthPluginOptions } from "./auth-plugin.js";
export type { AuthProvider } from "./auth-environment.js";
export { AuthErrors, type AuthErrorKey } from "./errors.js";

// Ports the plugin binds.
export { ACCOUNTS, type Accounts } from "../../contracts/accounts.js";
export { PASSWORD_HASHER, type PasswordHasher } from "../../contracts/password-hasher.js";
export { AUTHENTICATOR, type Authenticator } from "../../contracts/authenticator.js";
export { createScryptHasher, type ScryptParameters } from "../../adapters/password-hasher/scrypt.js";

// The user model.
export { baseUserPlugin } from "./users/base-user-plugin.js";
export { isDisabledPlugin } from "./users/is-disabled-plugin.js";
export { federatedIdentityPlugin, DEFAULT_FEDERATED_FIELD, type FederatedIdentityOptions } from "./users/federated-identity-plugin.js";
export { githubUserPlugin, GITHUB_FIELDS } from "./users/github-user-plugin.js";
export { FORBIDDEN_PROFILE_FIELDS } from "./users/profile-fields.js";
export type { AuthUserFields, CheckedUserModel, UserModel, UserModelProblem } from "./users/user-model.js";

// Provider options and building blocks.
export type { GitHubAuthOptions } from "./github/github-auth-options.js";
export type { SessionAuthOptions, OAuthClientCredentials } from "./session/session-auth-options.js";
export type { PasswordPolicy } from "./jwt/password-policy.js";
export type { PasswordResetMail, PasswordResetOptions } from "./jwt/password-reset.js";
export type { EmailVerificationMail, EmailVerificationOptions } from "./jwt/email-verification.js";
export type { EmailChangeMail, EmailChanged, EmailChangeOptions } from "./jwt/email-change.js";
export type { AccountDeletionOptions } from "./jwt/account-deletion.js";
export { emailVerificationPlugin } from "./users/email-verification-plugin.js";
export { TokenService, type TokenServiceOptions, type TokenUse } from "./jwt/token-service.js";
export { defaultJWTPayload, type GenerateJWTPayload, type SignInResult } from "./jwt/jwt-auth-service.js";
export { LoginRateLimiter, type FailureLimit, type LoginRateLimits, type LoginRateLimiterStores } from "./http/login-rate-limiter.js";
