import WebSocket from "ws";
import { RuntimeToolErrors } from "./runtime-errors.js";

/** What `Runtime.evaluate` answered, reduced to what a reader needs. */
export interface Evaluation {
  /** The JSON value when it has one, else undefined. */
  readonly value?: unknown;
  /** V8's description (`Map(2)`, `[Function: f]`, `Promise`...), for values that are not JSON. */
  readonly description?: string;
  readonly type: string;
  /** The thrown error's description (message and stack), when the expression threw. */
  readonly exception?: string;
}

interface RemoteObject {
  type: string;
  subtype?: string;
  value?: unknown;
  unserializableValue?: string;
  description?: string;
  objectId?: string;
}

// How an object of each subtype is read as JSON; other subtypes (functions, promises, errors...) are only described.
const JSON_READERS: Record<string, string> = {
  plain: "function () { return this; }",
  array: "function () { return this; }",
  map: "function () { return [...this.entries()]; }",
  set: "function () { return [...this.values()]; }",
  date: "function () { return this.toISOString(); }",
};

interface EvaluateResult {
  result: RemoteObject;
  exceptionDetails?: { text: string; exception?: RemoteObject };
}

/**
 * A Chrome DevTools Protocol session with a Node process's inspector (`node --inspect`): one
 * WebSocket, requests matched to answers by id.
 *
 * @example
 * const session = await InspectorSession.open("ws://127.0.0.1:9229/0f2c...", 5000);
 * const { value } = await session.evaluate("process.pid", 5000);
 * session.close();
 */
export class InspectorSession {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  private constructor(
    private readonly socket: WebSocket,
    readonly url: string,
  ) {
    socket.on("message", (data) => this.receive(String(data)));
    socket.on("close", () => this.failAll(new Error("the inspector closed the connection")));
    socket.on("error", (error) => this.failAll(error));
  }

  /** Connects, or throws `MCP_RUNTIME_INSPECTOR_FAILED`. */
  static open(url: string, timeoutMs: number): Promise<InspectorSession> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { handshakeTimeout: timeoutMs, maxPayload: 64 * 1024 * 1024 });
      socket.on("open", () => resolve(new InspectorSession(socket, url)));
      socket.on("error", (error) => reject(RuntimeToolErrors.INSPECTOR_FAILED(url, error.message)));
    });
  }

  /**
   * Evaluates `expression` in the process's global scope (REPL mode: top-level `await`, `let`
   * redeclarations), awaiting a returned promise. The expression runs once; its result is then
   * read as JSON when it is a plain object or array (entries for a Map or Set), else described.
   */
  async evaluate(expression: string, timeoutMs: number): Promise<Evaluation> {
    const objectGroup = `svc-mcp-${this.nextId}`;
    const { result, exceptionDetails } = (await this.call(
      "Runtime.evaluate",
      { expression, awaitPromise: true, replMode: true, timeout: timeoutMs, objectGroup },
      timeoutMs,
    )) as EvaluateResult;
    try {
      if (exceptionDetails) return { type: "exception", exception: exceptionDetails.exception?.description ?? exceptionDetails.text };
      const type = result.subtype ? `${result.type}:${result.subtype}` : result.type;
      if (result.unserializableValue) return { type, description: result.unserializableValue };
      if (result.objectId === undefined) return "value" in result ? { type, value: result.value } : { type };
      const read = result.type === "object" ? JSON_READERS[result.subtype ?? "plain"] : undefined;
      const value = read ? await this.readAsJson(result.objectId, read, timeoutMs) : undefined;
      return value === undefined ? { type, description: result.description } : { type, value: value.json, description: result.description };
    } finally {
      await this.call("Runtime.releaseObjectGroup", { objectGroup }, timeoutMs).catch(() => undefined);
    }
  }

  /** The object's JSON form, or undefined when it has none (cycles, too deep, not serialisable). */
  private async readAsJson(objectId: string, functionDeclaration: string, timeoutMs: number): Promise<{ json: unknown } | undefined> {
    try {
      const { result, exceptionDetails } = (await this.call(
        "Runtime.callFunctionOn",
        { objectId, functionDeclaration, returnByValue: true },
        timeoutMs,
      )) as EvaluateResult;
      return exceptionDetails || !("value" in result) ? undefined : { json: result.value };
    } catch {
      return undefined;
    }
  }

  close(): void {
    this.socket.close();
  }

  private call(method: string, params: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(RuntimeToolErrors.INSPECTOR_FAILED(this.url, `${method} did not answer within ${timeoutMs} ms`));
      }, timeoutMs + 1_000);
      this.pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  private receive(text: string): void {
    let message: { id?: number; result?: unknown; error?: { message: string } };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    // Events (no id) are not subscribed to; answers settle their request.
    const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id!);
    if (message.error) waiting.reject(new Error(message.error.message));
    else waiting.resolve(message.result);
  }

  private failAll(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(RuntimeToolErrors.INSPECTOR_FAILED(this.url, error.message));
    this.pending.clear();
  }
}
