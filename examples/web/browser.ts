// The few browser APIs the demo uses, typed here: the project compiles without the DOM library
// (its code runs in Node), and React's own types only name DOM interfaces, empty.

interface BrowserStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

interface BrowserGlobals {
  readonly location: { readonly origin: string; readonly pathname: string; readonly search: string };
  readonly history: { replaceState(state: unknown, unused: string, url: string): void };
  readonly localStorage: BrowserStorage;
  readonly document: { getElementById(id: string): Element | null };
}

/** The browser's globals the demo needs. */
export const browser = globalThis as unknown as BrowserGlobals;

/** The value of an input element from a React event on it. */
export function inputValue(event: { readonly currentTarget: unknown }): string {
  return (event.currentTarget as { value: string }).value;
}
