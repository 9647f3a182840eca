// Auth for the demo: JWT sign-up/login, and an admin user seeded on first start. The secrets
// need no set-up in development: the auth plugin generates them once into .svc/secrets.json.
import { randomBytes } from "node:crypto";
import { ACCOUNTS, authPlugin, type AccountDeletionOptions, type EmailChangeOptions, type EmailVerificationOptions, type PasswordResetOptions, type RequestUser, type SvcPlugin } from "../../index.js";
import { Todo } from "./todo.js";
import { User } from "./user.js";

/**
 * The demo's auth plugin (a new instance per app: plugins hold per-app state); `onSignup` is
 * told about each new account (the demo mails a welcome), `sendPasswordReset`,
 * `sendVerification` and `emailChange` mail reset, verification and email-change links.
 */
export function demoAuth(
  options: {
    onSignup?: (user: RequestUser) => unknown;
    sendPasswordReset?: PasswordResetOptions["send"];
    sendVerification?: EmailVerificationOptions["send"];
    emailChange?: EmailChangeOptions;
    accountDeletion?: AccountDeletionOptions;
  } = {},
): SvcPlugin {
  return authPlugin({
    userModel: User,
    profileFields: ["name"],
    onSignup: options.onSignup,
    passwordReset: options.sendPasswordReset ? { send: options.sendPasswordReset, expiresIn: "1h" } : undefined,
    emailVerification: options.sendVerification ? { send: options.sendVerification, expiresIn: "24h" } : undefined,
    emailChange: options.emailChange,
    // Users may delete their own account; its todos go with it (deleteOwnTodos).
    accountDeletion: options.accountDeletion ?? { onDeleted: deleteOwnTodos },
  });
}

/**
 * `accountDeletion.onDeleted`: deletes the user's todos. One by one with `save()`, since Todo is
 * synced: each delete draws a seq, so the user's other devices hear of it (a query-level
 * `deleteMany` is refused on synced models for that reason).
 */
export async function deleteOwnTodos(user: RequestUser): Promise<void> {
  for (const todo of await Todo.find({ ownerId: user.id })) {
    todo.set("deleted", true); // isDeletedPlugin's field (defaultPlugins)
    await todo.save();
  }
}

/**
 * Creates the admin user (`ADMIN_EMAIL`, default `admin@example.com`) if it does not exist. Its
 * password is `ADMIN_PASSWORD`, or a random one printed once, in development only; the password
 * is never logged in production and never stored anywhere but as a hash. `npm run create-admin`
 * creates more admins or resets a password.
 */
export const seedAdmin: SvcPlugin = {
  name: "demo-admin-seed",
  dependsOn: ["auth"],
  async start(ctx) {
    const email = (ctx.config.env.ADMIN_EMAIL ?? "admin@example.com").toLowerCase();
    if (await User.findOne({ email }).lean()) return;
    const given = ctx.config.env.ADMIN_PASSWORD;
    if (!given && ctx.config.isProduction) {
      ctx.logger.warn("No admin user: set ADMIN_EMAIL and ADMIN_PASSWORD to seed one, or run the create-admin command");
      return;
    }
    const password = given ?? randomBytes(12).toString("base64url");
    await ctx.resolve(ACCOUNTS).createPasswordUser({ email, name: "Admin", admin: true }, password);
    if (!given) {
      // Deliberately on stdout, not through the logger: log lines are shipped and kept.
      process.stdout.write(
        `\nDemo admin created: ${email} / ${password}\n` +
          `(shown once; set ADMIN_PASSWORD to choose it; reset it with: npm run create-admin -- --email ${email})\n\n`,
      );
    } else {
      ctx.logger.info(`Demo admin created: ${email}`);
    }
  },
};
