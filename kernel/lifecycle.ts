import { KernelErrors } from "./kernel-errors.js";

/**
 * Kernel lifecycle states. `failed` is terminal for a start that threw (the plugins that had
 * started are stopped again before the error propagates).
 */
export type LifecycleState = "created" | "registered" | "starting" | "started" | "stopping" | "stopped" | "failed";

const ALLOWED: Readonly<Record<LifecycleState, readonly LifecycleState[]>> = {
  created: ["registered"],
  registered: ["starting"],
  starting: ["started", "failed"],
  started: ["stopping"],
  stopping: ["stopped"],
  stopped: [],
  failed: [],
};

/**
 * A tiny state machine guarding the kernel's phases.
 *
 * @example
 * const lifecycle = new Lifecycle();
 * lifecycle.transition("registered", "register plugins");
 */
export class Lifecycle {
  #state: LifecycleState = "created";

  get state(): LifecycleState {
    return this.#state;
  }

  /** Moves to `next`, or throws `KERNEL_WRONG_STATE` naming the attempted `action`. */
  transition(next: LifecycleState, action: string): void {
    if (!ALLOWED[this.#state].includes(next)) throw KernelErrors.WRONG_STATE(action, this.#state);
    this.#state = next;
  }

  /** Throws `KERNEL_WRONG_STATE` unless the current state is one of `states`. */
  assert(states: readonly LifecycleState[], action: string): void {
    if (!states.includes(this.#state)) throw KernelErrors.WRONG_STATE(action, this.#state);
  }
}
