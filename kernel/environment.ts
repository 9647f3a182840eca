import { cleanEnv, EnvMissingError, makeValidator, type ValidatorSpec } from "envalid";
import { defineErrors } from "./errors.js";

export { bool, num, port, str, url, json, host, email, makeValidator } from "envalid";
export type { ValidatorSpec } from "envalid";

/** The variables an environment may hold (`process.env` or a test's own map). */
export type Environment = Readonly<Record<string, string | undefined>>;

export const ConfigErrors = defineErrors("CONFIG", {
  INVALID_ENVIRONMENT: {
    message: (problems: string) => `Invalid environment configuration:\n${problems}`,
  },
});

/**
 * Parses environment variables against envalid specs, throwing one `CONFIG_INVALID_ENVIRONMENT`
 * error that names every missing or malformed variable (instead of envalid's default
 * print-and-exit), so a host fails at start with a message a human can act on.
 *
 * @example
 * const auth = readEnvironment(process.env, { TOKEN_SECRET: str(), TOKEN_EXPIRES_IN: str({ default: "15m" }) });
 */
export function readEnvironment<S extends Record<string, ValidatorSpec<unknown>>>(
  environment: Environment,
  specs: S,
): ReturnType<typeof cleanEnv<S>> {
  return cleanEnv(environment, specs, {
    reporter: ({ errors }) => {
      const problems = Object.entries(errors)
        .filter((entry): entry is [string, Error] => entry[1] instanceof Error)
        .map(([name, error]) =>
          error instanceof EnvMissingError
            ? `  ${name}: required but not set`
            : `  ${name}: ${error.message || "invalid value"}`,
        );
      if (problems.length > 0) throw ConfigErrors.INVALID_ENVIRONMENT(problems.join("\n"));
    },
  });
}

/** A number within [min, max], e.g. a sample rate. */
export const numberInRange = (min: number, max: number) =>
  makeValidator<number>((input: string) => {
    const value = Number(input);
    if (input.trim() === "" || !Number.isFinite(value) || value < min || value > max) {
      throw new Error(`must be a number from ${min} to ${max}, got "${input}"`);
    }
    return value;
  });

/**
 * A TCP port to listen on: 1–65535, or 0 for "any free port" (what tests and scripts that print
 * the bound address want; envalid's `port` refuses 0).
 */
export const listenPort = makeValidator<number>((input: string) => {
  const value = Number(input);
  if (!/^\d+$/.test(input.trim()) || value > 65_535) throw new Error(`must be a port from 0 to 65535, got "${input}"`);
  return value;
});

/** A non-negative integer count of milliseconds. */
export const milliseconds = makeValidator<number>((input: string) => {
  if (!/^\d+$/.test(input.trim())) throw new Error(`must be a whole number of milliseconds, got "${input}"`);
  return Number(input);
});

/** A JSON object mapping names to URLs (the `<CHAT>_WEBHOOKS` variables). */
export const urlMap = makeValidator<Record<string, string>>((input: string) => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch {
    throw new Error("must be a JSON object mapping names to webhook URLs (it is not valid JSON)");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new Error("must be a JSON object mapping names to webhook URLs");
  }
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== "string" || !/^https?:\/\//.test(value)) {
      throw new Error(`entry "${name}" must be an http(s) URL`);
    }
  }
  return parsed as Record<string, string>;
});
