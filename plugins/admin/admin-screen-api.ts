// What the admin web UI gives an app's own screens (`ui.screenScripts`, docs/admin.md "Custom
// screens"), written once for both sides: app authors type their screens with it (`svc/admin`) and
// the UI (plugins/admin/ui/, a browser project of its own) implements it. This file imports
// nothing, so the UI can take its types without taking server code.

/**
 * The element a screen is mounted into: the DOM's `HTMLElement` where the DOM's types are loaded
 * (a browser project), `unknown` elsewhere — a server project compiled without the DOM library
 * can still import `svc/admin` without errors about a type it does not have.
 */
export type AdminScreenElement = typeof globalThis extends { HTMLElement: { prototype: infer E } } ? E : unknown;

/** Options of `context.request`. */
export interface AdminScreenRequest {
  /** Default `GET`. */
  readonly method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Added to the URL; `undefined` and empty values are left out. */
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** Sent as JSON. */
  readonly body?: unknown;
}

/** What `context.request` rejects with: the app's error answer (its first error), or a network failure (`status` 0). */
export interface AdminScreenRequestError extends Error {
  readonly status: number;
  /** The first error's `code` (e.g. `HTTP_FORBIDDEN`), when the answer had one. */
  readonly code?: string;
  readonly requestId?: string;
}

/** What a screen is given when it is shown. */
export interface AdminScreenContext {
  /**
   * A request to the app's API as the signed-in user (bearer token, token refresh, the page's
   * proxy prefix): `path` is the app's own path (`/reports/summary`). Resolves with the parsed
   * JSON body (undefined for 204), rejects with an `AdminScreenRequestError`. A 401 ends the
   * admin's sign-in, as anywhere else in the admin.
   */
  request<T = unknown>(path: string, options?: AdminScreenRequest): Promise<T>;
  /** The signed-in user. */
  readonly user: { readonly email: string; readonly name?: string };
  /** Where the admin API lives (`/admin`). */
  readonly basePath: string;
  /** The screen as the config declares it. */
  readonly screen: { readonly name: string; readonly displayName: string };
}

/**
 * An app's own admin screen, registered by a screen script with
 * `globalThis.svcAdmin.registerScreen(name, screen)`. `mount` renders into `element` (with any
 * framework, or none) and may return a cleanup, called when the user leaves the screen.
 *
 * @example
 * const reports: AdminScreen = {
 *   mount(element, context) {
 *     element.textContent = `Hello ${context.user.email}`;
 *     return () => console.log("left");
 *   },
 * };
 */
export interface AdminScreen {
  mount(element: AdminScreenElement, context: AdminScreenContext): void | (() => void);
}

/** `globalThis.svcAdmin`, set by the admin web UI before it loads the screen scripts. */
export interface AdminScreenRegistry {
  /** Registers the screen the config names `name`; a second registration of a name is ignored (and reported). */
  registerScreen(name: string, screen: AdminScreen): void;
}
