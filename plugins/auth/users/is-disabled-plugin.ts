import type { Schema } from "mongoose";

/**
 * Adds `disabled: boolean` (default false, or the given default). A disabled user gets 401 on
 * login, refresh and every authenticated request from the moment the flag is set: the auth
 * plugin reads the user on each request rather than trusting the token.
 *
 * @example
 * userSchema.plugin(isDisabledPlugin);        // default false
 * userSchema.plugin(isDisabledPlugin, true);  // new users start disabled (e.g. awaiting approval)
 */
export function isDisabledPlugin(schema: Schema, defaultValue: boolean | { default?: boolean } = false): void {
  const initial = typeof defaultValue === "boolean" ? defaultValue : (defaultValue.default ?? false);
  schema.add({
    disabled: { type: Boolean, default: initial, index: true, description: "A disabled user cannot sign in or use the API" },
  });
}
