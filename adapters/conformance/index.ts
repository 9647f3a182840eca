// The `svc/testing/conformance` package entry: the suites every adapter of a port passes, for
// adapters written outside svc as much as for svc's own. Each takes the caller's test function
// (ava's `test`), so svc ships no test runner.
export type { ConformanceAssertions, ConformanceImplementation, ConformanceTest } from "./conformance-test.js";
export { errorTrackerConformance, type ErrorTrackerUnderTest, type ObservedException } from "./error-tracker.js";
export { mailerConformance, assertResultShape, FAILURE_CLASSES, type AdapterUnderTest, type ProviderOutcome } from "./mailer.js";
export { smsConformance } from "./sms.js";
export { pushConformance, type PushSenderUnderTest } from "./push.js";
export { verificationConformance, type VerificationSenderUnderTest } from "./verification.js";
export { passwordHasherConformance, type PasswordHasherConformanceOptions } from "./password-hasher.js";
export { roleResolverConformance } from "./role-resolver.js";
