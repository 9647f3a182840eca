import { substituteTokens, type I18nProvider } from "ra-core";

// The few messages ra-core's controllers and hooks emit (notifications mostly), in plain English.
// Anything else is either a server message (shown as it is) or a key with a `_` fallback.
const MESSAGES: Record<string, string> = {
  "ra.notification.updated": "Saved",
  "ra.notification.created": "Created",
  "ra.notification.deleted": "Deleted",
  "ra.notification.item_doesnt_exist": "This record does not exist (any more)",
  "ra.notification.http_error": "The server could not answer. Please try again.",
  "ra.notification.logged_out": "Your sign-in has ended. Please sign in again.",
  "ra.notification.not_authorized": "You are not allowed to do this.",
  "ra.notification.data_provider_error": "Something went wrong on the way to the server.",
  "ra.notification.canceled": "Canceled",
  "ra.message.invalid_form": "Some fields need attention: see the messages on the form.",
  "ra.auth.sign_in_error": "Signing in failed. Please try again.",
  "ra.validation.required": "Required",
  "ra.page.not_found": "Not found",
};

export const i18nProvider: I18nProvider = {
  translate(key, options) {
    const template = MESSAGES[key] ?? (typeof options?._ === "string" ? options._ : key);
    return substituteTokens(template, options) as string;
  },
  changeLocale: () => Promise.resolve(),
  getLocale: () => (typeof navigator !== "undefined" ? navigator.language : "en"),
};
