// Auth for the demo: JWT sign-up/login, and an admin user seeded on first start.
import { randomBytes } from "node:crypto";
import { ACCOUNTS, authPlugin, type SvcPlugin } from "../../index.js";
import { User } from "./user.js";

/**
 * Development-only defaults for the auth secrets, so `npm start` works with no set-up. They are
 * random per process (tokens do not survive a restart); production must set real ones, and the
 * auth plugin refuses to start there without them.
 */
export function demoAuthEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env.NODE_ENV === "production") return env;
  const random = () => randomBytes(32).toString("base64url");
  return {
    ...env,
    TOKEN_SECRET: env.TOKEN_SECRET ?? random(),
    REFRESH_TOKEN_SECRET: env.REFRESH_TOKEN_SECRET ?? random(),
    SESSION_SECRET: env.SESSION_SECRET ?? random(),
    TOKEN_ISSUER: env.TOKEN_ISSUER ?? "svc-demo",
  };
}

export const demoAuth = authPlugin({ userModel: User, profileFields: ["name"] });

/**
 * Creates the admin user (`ADMIN_EMAIL`, default `admin@example.com`) if it does not exist. Its
 * password is `ADMIN_PASSWORD`, or a random one printed once, in development only; the password
 * is never logged in production and never stored anywhere but as a hash.
 */
export const seedAdmin: SvcPlugin = {
  name: "demo-admin-seed",
  dependsOn: ["auth"],
  async start(ctx) {
    const email = (ctx.config.env.ADMIN_EMAIL ?? "admin@example.com").toLowerCase();
    if (await User.findOne({ email }).lean()) return;
    const given = ctx.config.env.ADMIN_PASSWORD;
    if (!given && ctx.config.isProduction) {
      ctx.logger.warn("No admin user: set ADMIN_EMAIL and ADMIN_PASSWORD to seed one");
      return;
    }
    const password = given ?? randomBytes(12).toString("base64url");
    await ctx.resolve(ACCOUNTS).createPasswordUser({ email, name: "Admin", admin: true }, password);
    if (!given) {
      // Deliberately on stdout, not through the logger: log lines are shipped and kept.
      process.stdout.write(`\nDemo admin created: ${email} / ${password}\n(shown once; set ADMIN_PASSWORD to choose it)\n\n`);
    } else {
      ctx.logger.info(`Demo admin created: ${email}`);
    }
  },
};
