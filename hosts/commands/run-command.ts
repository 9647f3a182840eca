import { parseArgs } from "node:util";
import { DATABASE } from "../../contracts/database.js";
import type { Environment } from "../../kernel/environment.js";
import { APIError } from "../../kernel/api-error.js";
import { SvcError, hasErrorCode } from "../../kernel/errors.js";
import type { UserModel } from "../../plugins/auth/index.js";
import type { SvcApp } from "../svc-app.js";
import { createAdminUser } from "./create-admin-user.js";
import { CommandErrors } from "./errors.js";

/** Where a command writes: `process.stdout`/`process.stderr`, or anything with `write` (tests). */
export interface CommandOutput {
  write(text: string): unknown;
}

export interface RunCommandOptions {
  /** The app's user model (the one given to `authPlugin`), for the account commands. */
  userModel: UserModel;
  /** Default `process.stdin` (read only by `--password-stdin`). */
  stdin?: AsyncIterable<string | Uint8Array>;
  /** Default `process.stdout`: results, and a generated password. */
  stdout?: CommandOutput;
  /** Default `process.stderr`: usage and errors. */
  stderr?: CommandOutput;
}

const COMMANDS = ["create-admin", "help"] as const;

/** The text `help` prints. */
export const COMMAND_USAGE = `Commands:
  create-admin --email <email> [--password-stdin] [--field <name>=<value>]...
      Create an admin user, or make an existing user an admin and reset its password.
      The password is read from stdin with --password-stdin, else taken from ADMIN_PASSWORD,
      else generated and printed once. --email defaults to ADMIN_EMAIL. --field sets more
      fields of a new user (repeatable). Passwords are never accepted as arguments.
  help
      Show this help.
`;

/**
 * Runs one command against the app and stops the app: the `manage.py` of an svc project. The
 * project's own script builds its app (the same factory its server uses, so the command sees the
 * same plugins, database and user model) and hands over its arguments; the result is the exit
 * code (0 done, 1 failed, 2 usage error), with errors printed by code.
 *
 * @example
 * // scripts/manage.ts, run as `tsx --env-file=.env scripts/manage.ts create-admin --email ada@example.com`
 * import { runCommand } from "svc/commands";
 * import { createApp } from "../src/app.js";
 * import { User } from "../src/user.js";
 * process.exitCode = await runCommand(createApp(), process.argv.slice(2), { userModel: User });
 */
export async function runCommand(app: SvcApp, argv: readonly string[], options: RunCommandOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const [name, ...args] = argv;
  try {
    switch (name) {
      case "help":
      case "--help":
      case "-h":
        stdout.write(COMMAND_USAGE);
        return 0;
      case undefined:
        stderr.write(COMMAND_USAGE);
        return 2;
      case "create-admin":
        await createAdminCommand(app, args, options, stdout);
        return 0;
      default:
        throw CommandErrors.UNKNOWN_COMMAND(name, COMMANDS);
    }
  } catch (error) {
    stderr.write(`${describeError(error)}\n`);
    return isUsageError(error) ? 2 : 1;
  } finally {
    await app.stop();
  }
}

async function createAdminCommand(app: SvcApp, args: readonly string[], options: RunCommandOptions, stdout: CommandOutput): Promise<void> {
  const values = parseCommandArguments(args);
  if (values.password !== undefined) throw CommandErrors.PASSWORD_ON_COMMAND_LINE();
  const env: Environment = app.config.env;
  const email = values.email ?? nonBlank(env.ADMIN_EMAIL);
  if (!email) throw CommandErrors.INVALID_ARGUMENTS("create-admin needs --email <email> (or ADMIN_EMAIL)");
  const fields = parseFields(values.field ?? []);

  let password: string | undefined;
  let source = "generated";
  if (values["password-stdin"]) {
    password = stripLineEnd(await readAll(options.stdin ?? process.stdin));
    if (password === "") throw CommandErrors.INVALID_ARGUMENTS("--password-stdin read an empty password");
    source = "stdin";
  } else if (nonBlank(env.ADMIN_PASSWORD)) {
    password = env.ADMIN_PASSWORD;
    source = "ADMIN_PASSWORD";
  }

  // An admin written to an in-memory database is gone when this command ends: refuse, rather than report success.
  await app.build();
  if (app.kernel.container.tryResolve(DATABASE)?.inMemory === true) throw CommandErrors.DATABASE_IN_MEMORY();
  const result = await createAdminUser(app, { userModel: options.userModel, email, password, fields });
  stdout.write(
    result.created
      ? `Admin user ${result.email} created (id ${result.id}).\n`
      : `${result.email} is now an admin; its password was reset and its sign-ins ended.\n`,
  );
  if (result.disabled) stdout.write("Note: this user is disabled and cannot sign in until it is re-enabled.\n");
  if (result.generatedPassword) {
    // Printed once, deliberately on stdout rather than through the app's logger, whose lines are shipped and kept.
    stdout.write(`Password (shown once; keep it in a password manager): ${result.generatedPassword}\n`);
  } else {
    stdout.write(`Password: from ${source}.\n`);
  }
}

function parseCommandArguments(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      options: {
        email: { type: "string" },
        "password-stdin": { type: "boolean" },
        // Declared only to refuse it with a reason rather than "unknown option".
        password: { type: "string" },
        field: { type: "string", multiple: true },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw CommandErrors.INVALID_ARGUMENTS(error instanceof Error ? error.message : String(error));
  }
}

/** Fields the command manages itself, which `--field` may not set. */
const MANAGED_FIELDS = new Set(["email", "admin", "password", "_id", "id"]);

function parseFields(pairs: readonly string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    const name = at > 0 ? pair.slice(0, at).trim() : "";
    if (!name) throw CommandErrors.INVALID_ARGUMENTS(`--field takes <name>=<value>, got "${pair}"`);
    if (MANAGED_FIELDS.has(name) || name.startsWith("$")) throw CommandErrors.INVALID_ARGUMENTS(`--field may not set "${name}"`);
    fields[name] = pair.slice(at + 1);
  }
  return fields;
}

async function readAll(input: AsyncIterable<string | Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of input) text += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** `echo "$PASSWORD" | …` adds one newline, which is not part of the password. */
function stripLineEnd(text: string): string {
  return text.replace(/\r?\n$/, "");
}

function nonBlank(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

function isUsageError(error: unknown): boolean {
  return (
    hasErrorCode(error, CommandErrors.UNKNOWN_COMMAND) ||
    hasErrorCode(error, CommandErrors.INVALID_ARGUMENTS) ||
    hasErrorCode(error, CommandErrors.PASSWORD_ON_COMMAND_LINE)
  );
}

function describeError(error: unknown): string {
  if (error instanceof APIError) return `${error.code}: ${error.title}${error.detail ? ` (${error.detail})` : ""}`;
  if (error instanceof SvcError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
