import type { Request, RequestHandler } from "express";
import { token, type SvcContainer } from "../../kernel/container.js";
import type { SvcLogger } from "../../kernel/logger.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import type { ValidationIssue } from "./validation-issues.js";

/**
 * SPEC §8's request validation configuration. Every option is optional; the defaults are in
 * `DEFAULT_VALIDATOR_SETTINGS`.
 */
export interface OpenApiValidatorOptions {
  /** Validate request bodies and queries (default true). */
  validateRequests?: boolean;
  /** Check generated routes' responses against their documented schema (default false). */
  validateResponses?: boolean;
  /** Coerce values to the schema's types, e.g. `"5"` → `5` (default true). */
  coerceTypes?: boolean;
  /**
   * Manual validators strip properties their schema does not declare instead of rejecting them
   * (default true). Generated model routes always reject unknown fields unless the router sets
   * `validation.additionalProperties: "remove"` (see docs/decisions.md).
   */
  removeAdditional?: boolean;
  /** Log each failed validation at info level (default true). */
  logValidationErrors?: boolean;
  /**
   * Replaces the default error (SPEC §7's 400). Throw (or return) the error to send; return
   * nothing to let the request continue unvalidated.
   */
  onValidationError?: (issues: ValidationIssue[], req: Request) => unknown;
  /** Told which top-level properties `removeAdditional` stripped from a body (default none). */
  onAdditionalPropertiesRemoved?: (properties: string[], req: Request) => void;
}

/** The options with every default filled in. */
export type ValidatorSettings = Required<Omit<OpenApiValidatorOptions, "onValidationError" | "onAdditionalPropertiesRemoved">> &
  Pick<OpenApiValidatorOptions, "onValidationError" | "onAdditionalPropertiesRemoved">;

/** SPEC §8's defaults. */
export const DEFAULT_VALIDATOR_SETTINGS: Readonly<ValidatorSettings> = Object.freeze({
  validateRequests: true,
  validateResponses: false,
  coerceTypes: true,
  removeAdditional: true,
  logValidationErrors: true,
});

/** The app's validation settings (bound by `configureOpenApiValidator`; defaults otherwise). */
export const VALIDATOR_SETTINGS = token<ValidatorSettings>("validation.ValidatorSettings");

/** What a manual validator needs per request: its app's settings and logger. */
export interface ValidationContext {
  readonly settings: ValidatorSettings;
  readonly logger: SvcLogger;
}

/** Where manual validators find the context of the app serving the request. */
const CONTEXT_LOCAL = "svcValidation";

const OUTSIDE_AN_APP: ValidationContext = Object.freeze({ settings: DEFAULT_VALIDATOR_SETTINGS, logger: console });

/** The settings of the app a container belongs to. */
export function validatorSettingsOf(container: SvcContainer): ValidatorSettings {
  return container.tryResolve(VALIDATOR_SETTINGS) ?? DEFAULT_VALIDATOR_SETTINGS;
}

/**
 * Middleware the host mounts first on every app, so manual validators (which run inside route
 * handlers, outside any plugin) see that app's settings and logger.
 *
 * @example
 * app.use(validationContextMiddleware(() => ({ settings: validatorSettingsOf(container), logger })));
 */
export function validationContextMiddleware(context: () => ValidationContext): RequestHandler {
  let resolved: ValidationContext | undefined;
  return function svcValidationContext(_req, res, next) {
    // Resolved on first use: plugins have registered (and bound their settings) by then.
    resolved ??= context();
    res.locals[CONTEXT_LOCAL] = resolved;
    next();
  };
}

/** The validation context of the app serving a response (defaults outside an svc app). */
export function validationContextOf(locals: Record<string, unknown>): ValidationContext {
  return (locals[CONTEXT_LOCAL] as ValidationContext | undefined) ?? OUTSIDE_AN_APP;
}

/**
 * Configures request validation for one app (SPEC §8): register the returned plugin on the app.
 * Settings belong to that app's kernel, so apps in one process can differ. Generated model
 * routes read them at start; manual validators (`validateRequestBody`...) read them per request
 * through the context the host attaches to every response.
 *
 * @example
 * new SvcApp()
 *   .register(configureOpenApiValidator({
 *     onAdditionalPropertiesRemoved: (props, req) => logger.warn(`Stripped ${props.join(", ")} on ${req.path}`),
 *   }))
 *   .register(todoRouter);
 */
export function configureOpenApiValidator(options: OpenApiValidatorOptions = {}): SvcPlugin {
  const settings: ValidatorSettings = { ...DEFAULT_VALIDATOR_SETTINGS };
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined) (settings as unknown as Record<string, unknown>)[key] = value;
  }
  Object.freeze(settings);
  return {
    name: "openapi-validator",
    register(ctx) {
      ctx.container.bind(VALIDATOR_SETTINGS, { useValue: settings });
    },
  };
}
