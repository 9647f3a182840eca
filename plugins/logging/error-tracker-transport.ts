import TransportStream from "winston-transport";
import type { ErrorTracker, ErrorTrackerLogLevel } from "../../contracts/error-tracker.js";

const LEVELS: Record<string, ErrorTrackerLogLevel> = {
  error: "error",
  warn: "warn",
  info: "info",
  http: "info",
  verbose: "debug",
  debug: "debug",
  silly: "debug",
};
const SKIPPED = new Set(["level", "message", "timestamp", "stack"]);

/**
 * A winston transport that mirrors log lines to the error tracker (`USE_ERRORTRACKER_LOGGING`),
 * with correlation fields and labels as flat attributes. Added to the app's logger by the logging
 * plugin while the app runs.
 *
 * @example
 * logger.add(new ErrorTrackerTransport({ tracker, level: "info" }));
 */
export class ErrorTrackerTransport extends TransportStream {
  private readonly tracker: ErrorTracker;

  constructor(options: { tracker: ErrorTracker; level?: string }) {
    super({ level: options.level ?? "info" });
    this.tracker = options.tracker;
  }

  override log(info: Record<string, unknown>, next: () => void): void {
    const attributes: Record<string, string | number | boolean> = {};
    for (const [key, value] of Object.entries(info)) {
      if (SKIPPED.has(key) || value === undefined || value === null) continue;
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") attributes[key] = value;
      else if (key === "svcLabels" && typeof value === "object") {
        for (const [label, labelValue] of Object.entries(value)) attributes[`label.${label}`] = String(labelValue);
      } else if (key !== "svcRequestLog") attributes[key] = safeJson(value);
    }
    this.tracker.captureLog({ level: LEVELS[String(info.level)] ?? "info", message: String(info.message), attributes });
    next();
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return "[unserializable]";
  }
}
