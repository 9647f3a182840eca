import { randomUUID } from "node:crypto";
import type { RequestUser } from "../../contracts/request-user.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { AdminErrors } from "./errors.js";

/** What a running script is given. */
export interface AdminScriptContext {
  /** Appends a line to the task's log (readable while it runs). */
  log(message: string): void;
  /** Aborted when the app stops: long scripts should check it. */
  readonly signal: AbortSignal;
  /** Who started it. */
  readonly user: RequestUser;
}

/**
 * A script the admin's Scripts tool can run as a background task.
 *
 * @example
 * const reindex: AdminScript = { description: "Rebuilds the search index", run: async ({ log }) => { log("starting"); } };
 */
export interface AdminScript {
  readonly description?: string;
  /**
   * How many runs may be in progress at once (1 to 100, default 1). A run past it is refused
   * with 409 `ADMIN_SCRIPT_RUNNING`: a double click or a retried request does not start a
   * second recount over the first.
   */
  readonly concurrency?: number;
  run(context: AdminScriptContext): unknown;
}

export type ScriptTaskStatus = "running" | "succeeded" | "failed";

/** One run of a script, as the task routes show it. */
export interface ScriptTask {
  readonly id: string;
  readonly script: string;
  status: ScriptTaskStatus;
  readonly startedBy: string;
  readonly started: Date;
  finished?: Date;
  readonly log: string[];
  /** The failure's message (never its stack). */
  error?: string;
}

/** Tasks kept for reading back; older finished ones are dropped first. */
const MAX_TASKS = 100;
const MAX_LOG_LINES = 1000;
const MAX_LINE_LENGTH = 2000;
const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_CONCURRENCY = 100;

/**
 * Runs registered scripts in the background, one task per run, kept in memory (the most recent
 * 100): status, log and failure. A script that throws or rejects marks its task failed; it never
 * reaches the request that started it or the process.
 *
 * @example
 * const tasks = new ScriptTasks({ hello: { run: ({ log }) => log("hi") } }, logger);
 * const task = tasks.run("hello", user);
 */
export class ScriptTasks {
  private readonly tasks = new Map<string, ScriptTask>();
  private readonly running = new Set<Promise<void>>();
  /** Each script's runs in progress (kept apart from `tasks`, which may drop an old running task). */
  private readonly inProgress = new Map<string, Set<ScriptTask>>();
  private readonly abort = new AbortController();

  constructor(
    private readonly scripts: Readonly<Record<string, AdminScript>>,
    private readonly logger: SvcLogger,
  ) {
    for (const [name, script] of Object.entries(scripts)) {
      if (!NAME.test(name)) throw AdminErrors.INVALID_SCRIPT_NAME(name);
      const { concurrency } = script;
      if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= MAX_CONCURRENCY)) throw AdminErrors.INVALID_SCRIPT_CONCURRENCY(name, concurrency);
    }
  }

  /** The registered scripts. */
  list(): { name: string; description?: string }[] {
    return Object.entries(this.scripts).map(([name, script]) => ({ name, ...(script.description ? { description: script.description } : {}) }));
  }

  /** Starts `name` in the background and returns its task at once. */
  run(name: string, user: RequestUser): ScriptTask {
    const script = Object.hasOwn(this.scripts, name) ? this.scripts[name] : undefined;
    if (!script) throw AdminErrors.UNKNOWN_SCRIPT({ detail: "No script is registered under this name" });
    let runs = this.inProgress.get(name);
    if (!runs) this.inProgress.set(name, (runs = new Set()));
    const allowed = script.concurrency ?? 1;
    if (runs.size >= allowed) {
      const taskIds = [...runs].map((running) => running.id);
      throw AdminErrors.SCRIPT_RUNNING({ detail: `Script "${name}" is already running (${allowed === 1 ? `task ${taskIds[0]}` : `${allowed} runs at most`}); run it again once it has finished`, meta: { taskIds } });
    }
    const task: ScriptTask = { id: randomUUID(), script: name, status: "running", startedBy: user.id, started: new Date(), log: [] };
    runs.add(task);
    this.keep(task);
    const log = (message: string) => {
      if (task.log.length < MAX_LOG_LINES) task.log.push(String(message).slice(0, MAX_LINE_LENGTH));
    };
    const done = (async () => {
      try {
        // A microtask later, so the caller has the task before the script's first line runs.
        await Promise.resolve();
        await script.run({ log, signal: this.abort.signal, user });
        task.status = "succeeded";
      } catch (error) {
        task.status = "failed";
        task.error = error instanceof Error ? error.message : String(error);
        this.logger.warn(`Admin script "${name}" failed`, { taskId: task.id, script: name, error: task.error });
      } finally {
        task.finished = new Date();
        runs.delete(task);
      }
    })();
    this.running.add(done);
    void done.finally(() => this.running.delete(done));
    return task;
  }

  /** Every kept task, newest first. */
  listTasks(): ScriptTask[] {
    return [...this.tasks.values()].reverse();
  }

  get(id: string): ScriptTask {
    const task = this.tasks.get(id);
    if (!task) throw AdminErrors.UNKNOWN_TASK({ detail: "No background task with this id" });
    return task;
  }

  /** Signals running scripts to stop and waits for them. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.allSettled([...this.running]);
  }

  private keep(task: ScriptTask): void {
    this.tasks.set(task.id, task);
    if (this.tasks.size <= MAX_TASKS) return;
    const finished = [...this.tasks.values()].find((entry) => entry.status !== "running");
    this.tasks.delete((finished ?? this.tasks.values().next().value!).id);
  }
}
