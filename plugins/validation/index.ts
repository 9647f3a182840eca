// Request validation (SPEC §7, §8): one validator, shared by every plugin that checks input.
export { ValidationErrors } from "./errors.js";
export { ajvFor, type AjvVariant } from "./ajv-instances.js";
export { operatorKeys, unstorableKeys } from "./body-keys.js";
export {
  configureOpenApiValidator,
  DEFAULT_VALIDATOR_SETTINGS,
  VALIDATOR_SETTINGS,
  validationContextMiddleware,
  validationContextOf,
  validatorSettingsOf,
  type OpenApiValidatorOptions,
  type ValidationContext,
  type ValidatorSettings,
} from "./validator-settings.js";
export {
  createValidator,
  runValidation,
  validateQueryParams,
  validateRequestBody,
  type CombinedValidatorOptions,
  type PropertySchema,
  type RequestValidatorOptions,
  type ValidationSchema,
} from "./request-validators.js";
export { carriesBody, JSON_MEDIA_TYPES, requireJsonBody } from "./json-body.js";
export { decodingFailuresAsClientErrors } from "./body-decoding.js";
export { castMessage, mongooseValidationIssues } from "./mongoose-issues.js";
export {
  fromAjvErrors,
  isRequestValidationError,
  MAX_REPORTED_ISSUES,
  pointerOf,
  reportedIssues,
  requestValidationError,
  type ValidationIssue,
  type ValidationLocation,
} from "./validation-issues.js";
