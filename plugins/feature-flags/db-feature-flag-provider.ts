import {
  ErrorCode,
  OpenFeatureEventEmitter,
  ProviderEvents,
  type EvaluationContext,
  type JsonValue,
  type Provider,
  type ResolutionDetails,
} from "@openfeature/server-sdk";
import { flagUserId, type CompiledFlag } from "./evaluate-flag.js";
import type { FlagUser } from "./flag-types.js";

/**
 * Where the provider finds flags: the plugin's change-stream-fed cache (`FlagCache`), or a model
 * lookup through `findOneOrNone` for standalone use (`modelFlagSource()`). `null` means no such
 * (non-deleted) flag.
 */
export interface FlagSource {
  findFlag(key: string): Promise<CompiledFlag | null>;
}

/** Reports an evaluation (the plugin logs these at debug level when `FEATURE_FLAGS_DEBUG`). */
export type EvaluationObserver = (flagKey: string, result: ResolutionDetails<unknown>) => void;

/**
 * An OpenFeature server provider backed by svc's feature flags, using the same evaluation as the
 * HTTP routes. Boolean flags resolve through `resolveBooleanEvaluation`, variant flags through
 * `resolveStringEvaluation` (the variant key). Number and object flags do not exist here: those
 * calls answer FLAG_NOT_FOUND with the caller's default, as SPEC §2.3 requires.
 *
 * @example
 * await OpenFeature.setProviderAndWait("feature-flags", new DbFeatureFlagProvider(source));
 * const client = OpenFeature.getClient("feature-flags");
 * await client.getBooleanValue("new-checkout", false, { targetingKey: user.id, plan: "pro" });
 */
export class DbFeatureFlagProvider implements Provider {
  readonly metadata = { name: "svc-db-feature-flags" } as const;
  readonly runsOn = "server" as const;
  readonly events = new OpenFeatureEventEmitter();
  private readonly source: FlagSource;
  private readonly observe: EvaluationObserver;

  constructor(source: FlagSource, options: { onEvaluation?: EvaluationObserver } = {}) {
    this.source = source;
    this.observe = options.onEvaluation ?? (() => {});
  }

  async resolveBooleanEvaluation(flagKey: string, defaultValue: boolean, context: EvaluationContext): Promise<ResolutionDetails<boolean>> {
    return this.resolve(flagKey, defaultValue, context, "boolean");
  }

  async resolveStringEvaluation(flagKey: string, defaultValue: string, context: EvaluationContext): Promise<ResolutionDetails<string>> {
    return this.resolve(flagKey, defaultValue, context, "variant");
  }

  async resolveNumberEvaluation(flagKey: string, defaultValue: number): Promise<ResolutionDetails<number>> {
    return notFound(flagKey, defaultValue);
  }

  async resolveObjectEvaluation<T extends JsonValue>(flagKey: string, defaultValue: T): Promise<ResolutionDetails<T>> {
    return notFound(flagKey, defaultValue);
  }

  /** Tells OpenFeature clients that these flags changed (`PROVIDER_CONFIGURATION_CHANGED`). */
  emitConfigurationChanged(flagsChanged: string[]): void {
    this.events.emit(ProviderEvents.ConfigurationChanged, { flagsChanged });
  }

  private async resolve<T extends boolean | string>(
    flagKey: string,
    defaultValue: T,
    context: EvaluationContext,
    type: CompiledFlag["type"],
  ): Promise<ResolutionDetails<T>> {
    const flag = await this.source.findFlag(flagKey);
    let result: ResolutionDetails<T>;
    if (!flag) {
      result = notFound(flagKey, defaultValue);
    } else if (flag.type !== type) {
      result = {
        value: defaultValue,
        reason: "ERROR",
        errorCode: ErrorCode.TYPE_MISMATCH,
        errorMessage: `Flag "${flagKey}" is a ${flag.type} flag`,
      };
    } else {
      const user = context as FlagUser;
      // targetingKey is OpenFeature's name for whom to bucket (a user, an organisation...); the
      // context's id fields are only the fallback, so spreading a user into it cannot override it.
      const subject = typeof context.targetingKey === "string" && context.targetingKey !== "" ? context.targetingKey : flagUserId(user);
      const evaluation = flag.evaluate(user, subject);
      // A disabled variant flag has no value (null); OpenFeature callers get their default.
      const value = (evaluation.value ?? defaultValue) as T;
      result = { value, reason: evaluation.reason, variant: evaluation.variant };
    }
    this.observe(flagKey, result);
    return result;
  }
}

function notFound<T>(flagKey: string, defaultValue: T): ResolutionDetails<T> {
  return {
    value: defaultValue,
    reason: "ERROR",
    errorCode: ErrorCode.FLAG_NOT_FOUND,
    errorMessage: `Flag "${flagKey}" not found`,
  };
}
