import { createContext, useContext, useSyncExternalStore } from "react";
import type { AdminScreen, AdminScreenRegistry } from "../admin-screen-api";

/** A screen a script registered, and which script did (when it did so while being loaded). */
export interface RegisteredScreen {
  readonly screen: AdminScreen;
  readonly script?: string;
}

/** Something that went wrong with a screen script: it failed to load or throw, or misused `registerScreen`. */
export interface ScreenProblem {
  readonly message: string;
  readonly script?: string;
  /** The screen name it concerns, when it concerns one (a second registration). */
  readonly screen?: string;
}

export interface ScreenScriptsState {
  /** True until every script has been loaded (or has failed). */
  readonly loading: boolean;
  readonly screens: ReadonlyMap<string, RegisteredScreen>;
  readonly problems: readonly ScreenProblem[];
}

/**
 * The app's own screens (`ui.screenScripts`): `globalThis.svcAdmin.registerScreen` collects them,
 * `load` imports the scripts. Which screens a caller sees is still the config's decision: a
 * registered screen the config does not list is never shown.
 */
export class ScreenScripts {
  private state: ScreenScriptsState = { loading: true, screens: new Map(), problems: [] };
  private readonly listeners = new Set<() => void>();
  /** The script being imported: registrations made while it runs are its own. */
  private current: string | undefined;

  readonly snapshot = (): ScreenScriptsState => this.state;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** `globalThis.svcAdmin`: frozen and set once, so one script cannot replace it for the others. */
  install(target: typeof globalThis = globalThis): void {
    const registry: AdminScreenRegistry = Object.freeze({ registerScreen: (name: string, screen: AdminScreen) => this.register(name, screen) });
    Object.defineProperty(target, "svcAdmin", { value: registry, enumerable: true, writable: false, configurable: false });
  }

  /** Imports each script once, in order; a failure is reported and the next script still loads. */
  async load(prefix: string, scripts: readonly string[]): Promise<void> {
    for (const script of scripts) {
      this.current = script;
      try {
        const url = new URL(`${prefix}${script}`, location.href);
        // readSettings checked the paths; this is the last word before running one as this page.
        if (url.origin !== location.origin) throw new Error("it is not on this page's origin");
        await import(url.href);
      } catch (error) {
        this.report({ script, message: `${script} could not be loaded: ${messageOf(error)}` });
      }
    }
    this.current = undefined;
    this.update({ loading: false });
  }

  private register(name: unknown, screen: unknown): void {
    const script = this.current;
    const by = script ? ` (in ${script})` : "";
    if (typeof name !== "string" || name === "") {
      this.report({ script, message: `svcAdmin.registerScreen was called without a screen name${by}` });
      return;
    }
    if (typeof (screen as Partial<AdminScreen> | null)?.mount !== "function") {
      this.report({ script, screen: name, message: `Screen "${name}" was registered without a mount function${by}` });
      return;
    }
    const first = this.state.screens.get(name);
    if (first) {
      this.report({ script, screen: name, message: `Screen "${name}" was registered twice${by}; the first registration${first.script ? ` (in ${first.script})` : ""} is kept` });
      return;
    }
    this.update({ screens: new Map(this.state.screens).set(name, { screen: screen as AdminScreen, script }) });
  }

  private report(problem: ScreenProblem): void {
    console.error(`svc admin: ${problem.message}`);
    this.update({ problems: [...this.state.problems, problem] });
  }

  private update(change: Partial<ScreenScriptsState>): void {
    this.state = { ...this.state, ...change };
    for (const listener of this.listeners) listener();
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export const ScreenScriptsContext = createContext<ScreenScripts>(new ScreenScripts());

/** The screen scripts' current state; re-renders as scripts load and register. */
export function useScreenScripts(): ScreenScriptsState {
  const scripts = useContext(ScreenScriptsContext);
  return useSyncExternalStore(scripts.subscribe, scripts.snapshot);
}
