import type { Document } from "bson";
import { compileExpression } from "../query/index.js";
import { EngineError } from "../engine-error.js";
import type { CommandContext } from "./command-context.js";
import { documentArgument } from "./command-arguments.js";

/** One evaluation per command document: `update` asks once per statement. */
const evaluated = new WeakMap<Document, Readonly<Record<string, unknown>>>();

/**
 * The command's `let` variables as values. mongod treats each as an expression evaluated once,
 * before any document is read (`{total: {$add: [1, 2]}}` → `$$total` is 3, `{$literal: "$x"}` →
 * the string), so the query library receives values, never expressions. Names follow mongod's
 * rules for user variables (16866/16867/16868).
 *
 * @example
 * letVariables(ctx); // {limit: 3} for {aggregate: "c", pipeline: [...], let: {limit: {$add: [1, 2]}}}
 */
export function letVariables(ctx: CommandContext): Readonly<Record<string, unknown>> | undefined {
  const cached = evaluated.get(ctx.command);
  if (cached) return cached;
  const raw = documentArgument(ctx, "let");
  if (!raw) return undefined;
  const now = new Date();
  const values: Record<string, unknown> = {};
  for (const [name, expression] of Object.entries(raw)) {
    assertUserVariableName(name);
    const value = compileExpression(expression)({}, { now, variables: values });
    values[name] = value === undefined ? null : value;
  }
  evaluated.set(ctx.command, values);
  return values;
}

function assertUserVariableName(name: string): void {
  if (name.length === 0) throw new EngineError(16866, "empty variable names are not allowed");
  const first = name.charCodeAt(0);
  if (!(first > 127 || (first >= 97 && first <= 122))) {
    throw new EngineError(16867, `'${name}' starts with an invalid character for a user variable name`);
  }
  for (const char of name) {
    if (!(char.charCodeAt(0) > 127 || /[A-Za-z0-9_]/.test(char))) {
      throw new EngineError(16868, `'${name}' contains an invalid character for a variable name: '${char}'`);
    }
  }
}
