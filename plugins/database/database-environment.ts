import { makeValidator, readEnvironment, type Environment } from "../../kernel/environment.js";

/** The database variables (SPEC §8), parsed and checked. */
export interface DatabaseEnvironment {
  /** `DB_URI`, falling back to `DB_CONNECTION`; undefined means "use the embedded engine". */
  readonly uri?: string;
}

// mongoose accepts only these two schemes; saying so at start beats a driver error at connect.
// Multi-host strings (`mongodb://a:1,b:2/db`) are not WHATWG URLs, so `url()` cannot check them.
const mongoUri = makeValidator<string>((input: string) => {
  const value = input.trim();
  if (!/^mongodb(\+srv)?:\/\/\S+$/.test(value)) throw new Error('must be a MongoDB connection string ("mongodb://..." or "mongodb+srv://...")');
  return value;
});

/**
 * Reads `DB_URI` (or `DB_CONNECTION`) from an environment map (an app's `ctx.config.env`). A
 * value that is not a MongoDB connection string throws `CONFIG_INVALID_ENVIRONMENT` naming the
 * variable; the database plugin calls this in `register()`, so a bad value fails the app's start.
 *
 * @example
 * readDatabaseEnvironment({ DB_CONNECTION: "mongodb://db.internal/app" }).uri; // "mongodb://db.internal/app"
 */
export function readDatabaseEnvironment(environment: Environment): DatabaseEnvironment {
  // Empty values count as unset (a blank line in a .env file must not mean "connect to nothing").
  const env = readEnvironment(
    { DB_URI: nonEmpty(environment.DB_URI), DB_CONNECTION: nonEmpty(environment.DB_CONNECTION) },
    {
      DB_URI: mongoUri({ default: undefined }),
      DB_CONNECTION: mongoUri({ default: undefined }),
    },
  );
  return { uri: env.DB_URI ?? env.DB_CONNECTION };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}
