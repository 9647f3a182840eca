import type { Document } from "bson";
import type { ConnectionInfo } from "../commands/command-context.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { FailPoint, isPlainDocument } from "./fail-point.js";

/** The fail points the engine implements (anything else: FailPointSetFailed 266, "<name> not found"). */
export const FAIL_POINT_NAMES = ["failCommand", "failGetMoreAfterCursorCheckout", "maxTimeAlwaysTimeOut"] as const;
export type FailPointName = (typeof FAIL_POINT_NAMES)[number];

/** What the handshake (`hello` with `client`) said about a connection's client. */
export interface ClientMetadata {
  /** `client.application.name` (the driver's `appName` option). */
  readonly appName: string | undefined;
  /** `internalClient` was sent: another server, not an application driver. */
  readonly internal: boolean;
}

const NO_METADATA: ClientMetadata = { appName: undefined, internal: false };

/**
 * The engine's fail points and what they need to know about connections. `armed` is the one
 * field the dispatcher reads on every command: false (nothing set) means no fail-point code runs.
 *
 * @example
 * registry.configure("failCommand", {mode: {times: 1}, data: {failCommands: ["insert"], errorCode: 91}});
 * registry.armed; // true until the point has fired once
 */
export class FailPointRegistry {
  armed = false;
  private readonly points = new Map<FailPointName, FailPoint>(FAIL_POINT_NAMES.map((name) => [name, new FailPoint()]));
  private readonly clients = new WeakMap<ConnectionInfo, ClientMetadata>();

  /** Sets a fail point's mode and data (`configureFailPoint`); returns its previous `timesEntered`. */
  configure(name: string, command: Document): number {
    const point = this.points.get(name as FailPointName);
    if (!point) throw new EngineError(ErrorCodes.FailPointSetFailed, `${name} not found`);
    const before = point.configure(command);
    this.rearm();
    return before;
  }

  /** Fires `name` for a call `selects` accepts; keeps `armed` exact when a `times` count runs out. */
  evaluate(name: FailPointName, selects: (data: Document) => boolean): Document | undefined {
    const point = this.points.get(name)!;
    if (!point.active) return undefined;
    const data = point.evaluate(selects);
    if (data !== undefined && !point.active) this.rearm();
    return data;
  }

  /** Records the handshake's client metadata (mongod keeps the first one of a connection). */
  noteHandshake(connection: ConnectionInfo, command: Document): void {
    if (this.clients.has(connection)) return;
    const client = command["client"];
    const application = isPlainDocument(client) ? client["application"] : undefined;
    const appName = isPlainDocument(application) && typeof application["name"] === "string" ? application["name"] : undefined;
    this.clients.set(connection, { appName, internal: command["internalClient"] !== undefined });
  }

  clientOf(connection: ConnectionInfo): ClientMetadata {
    return this.clients.get(connection) ?? NO_METADATA;
  }

  private rearm(): void {
    this.armed = [...this.points.values()].some((point) => point.active);
  }
}

/** Commands whose failure must never be injected: the fail point could not be turned off. */
export function isFailPointExempt(name: string): boolean {
  return name === "configureFailPoint";
}

