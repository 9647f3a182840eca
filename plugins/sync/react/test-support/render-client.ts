import { render, type RenderResult } from "@testing-library/react";
import { createElement, type ReactNode } from "react";
import type { SyncAuthProvider, SyncDb } from "../../client/index.js";
import { SyncDbProvider } from "../index.js";

/** An auth provider of a fixed user and token. */
export function fixedAuth(userId = "u1", token = "token-1"): SyncAuthProvider {
  return { getToken: () => token, getUserId: () => userId, onAuthChange: () => () => undefined };
}

/** Renders `children` under a `SyncDbProvider` of `client`; unmounted at the end of the test. */
export function renderWith(t: { teardown: (fn: () => void) => void }, client: SyncDb, children: ReactNode): RenderResult {
  const result = render(createElement(SyncDbProvider, { client }, children));
  t.teardown(() => result.unmount());
  return result;
}

/** Counts renders per label: a component calls `counter.hit(label)` in its body. */
export function renderCounter() {
  const counts = new Map<string, number>();
  return {
    hit: (label: string) => void counts.set(label, (counts.get(label) ?? 0) + 1),
    of: (label: string) => counts.get(label) ?? 0,
  };
}

/** The text of the element with `data-testid` `testId` (the project's types have no DOM lib). */
export function textOf(view: Pick<RenderResult, "getByTestId">, testId: string): string {
  return (view.getByTestId(testId) as unknown as { textContent: string | null }).textContent ?? "";
}
