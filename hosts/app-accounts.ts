import { ACCOUNTS, type Accounts } from "../contracts/accounts.js";
import { defineErrors } from "../kernel/errors.js";
import type { SvcApp } from "./svc-app.js";

/** Errors of the tools that administer an app's accounts from outside a request (commands, test helpers). */
export const AppAccountsErrors = defineErrors("APP_ACCOUNTS", {
  /** Nothing binds `ACCOUNTS`: no auth plugin, or session auth (where better-auth owns passwords). */
  UNAVAILABLE: {
    message: () =>
      "This app has no ACCOUNTS service: register authPlugin({ userModel }) with the JWT provider " +
      "(under AUTH_PROVIDER=session-auth, better-auth owns passwords and svc cannot set them)",
  },
});

/**
 * The app's `ACCOUNTS` port, building (starting) the app first if needed — `build()` is
 * idempotent, so a running app is used as it is. Throws `APP_ACCOUNTS_UNAVAILABLE` when no auth
 * plugin with the JWT provider is registered.
 *
 * @example
 * const accounts = await appAccounts(app);
 * await accounts.setPassword(userId, newPassword);
 */
export async function appAccounts(app: SvcApp): Promise<Accounts> {
  await app.build();
  const accounts = app.kernel.container.tryResolve(ACCOUNTS);
  if (!accounts) throw AppAccountsErrors.UNAVAILABLE();
  return accounts;
}
