import type { SvcLogger } from "../../kernel/logger.js";
import type { SegmentProblem } from "./evaluate-flag.js";

/**
 * Reports a segment rule that cannot decide (its segment is not registered, or threw) once per
 * flag and segment: evaluation runs per request, and would otherwise log on every one.
 *
 * @example
 * new FlagCache({ model, logger, onSegmentProblem: warnSegmentProblemsOnce(logger) });
 */
export function warnSegmentProblemsOnce(logger: SvcLogger): SegmentProblem {
  const warned = new Set<string>();
  return (flagKey, segment, error) => {
    const id = `${flagKey}/${segment}`;
    if (warned.has(id)) return;
    warned.add(id);
    logger.warn(`Feature flag "${flagKey}": segment "${segment}" ${error ? "threw" : "is not registered"}; the rule never matches`, {
      reason: error instanceof Error ? error.message : undefined,
    });
  };
}
