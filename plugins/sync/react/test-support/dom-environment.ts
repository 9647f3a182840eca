// A DOM for React tests in Node: happy-dom's window, with the globals react-dom and
// @testing-library/react look for. Import it before either (react-dom checks for a DOM when it
// loads). Node's own fetch, URL, timers and WebSocket stay: the sync client talks to real servers.
import { Window } from "happy-dom";

const window = new Window({ url: "http://localhost/" });
const globals = globalThis as Record<string, unknown>;
const KEYS = [
  "window",
  "document",
  "navigator",
  "Node",
  "Element",
  "HTMLElement",
  "HTMLInputElement",
  "HTMLButtonElement",
  "Text",
  "DocumentFragment",
  "Event",
  "CustomEvent",
  "MouseEvent",
  "KeyboardEvent",
  "InputEvent",
  "FocusEvent",
  "MutationObserver",
  "getComputedStyle",
  "requestAnimationFrame",
  "cancelAnimationFrame",
] as const;
for (const key of KEYS) {
  if (key === "navigator") Object.defineProperty(globalThis, key, { value: window.navigator, configurable: true });
  else globals[key] = key === "window" ? window : (window as unknown as Record<string, unknown>)[key];
}
// React warns about updates outside act() unless it knows it runs in tests.
globals.IS_REACT_ACT_ENVIRONMENT = true;

/** Closes the window (its timers would keep the process alive). */
export async function closeDom(): Promise<void> {
  await window.happyDOM.close();
}
