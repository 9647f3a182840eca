import type { Environment } from "../../kernel/environment.js";

/** What decides whether console lines carry ANSI colours. */
export interface ConsoleColorInputs {
  /** `setupLogging`'s `disableConsoleColors`: `true` never colours, `false` always does; unset decides from the rest. */
  disableConsoleColors?: boolean;
  /** The environment (`NO_COLOR`, `FORCE_COLOR`, `NODE_DISABLE_COLORS`, `TERM`). */
  env: Environment;
  /** Whether the console stream is a terminal (`process.stdout.isTTY`). */
  isTTY: boolean | undefined;
}

/**
 * Whether console log lines get ANSI colours. Code wins over the environment (no-color.org: an
 * explicit setting overrides `NO_COLOR`); then `FORCE_COLOR` (any value but `0`/`false`) forces
 * them, as in Node itself; `NO_COLOR` or `NODE_DISABLE_COLORS` (non-empty) turns them off;
 * otherwise only a terminal that is not `TERM=dumb` gets them — never a pipe, a file or a log
 * collector.
 *
 * @example
 * consoleColorsEnabled({ env: process.env, isTTY: process.stdout.isTTY });
 * consoleColorsEnabled({ env: { FORCE_COLOR: "1" }, isTTY: false }); // true
 */
export function consoleColorsEnabled(inputs: ConsoleColorInputs): boolean {
  if (inputs.disableConsoleColors !== undefined) return !inputs.disableConsoleColors;
  const { env } = inputs;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
  if (env.NO_COLOR || env.NODE_DISABLE_COLORS) return false;
  return inputs.isTTY === true && env.TERM !== "dumb";
}
