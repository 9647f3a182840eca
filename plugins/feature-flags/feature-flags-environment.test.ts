import test from "ava";
import { ConfigErrors } from "../../kernel/environment.js";
import { hasErrorCode } from "../../kernel/errors.js";
import { readFeatureFlagsEnvironment } from "./feature-flags-environment.js";

test("FEATURE_FLAGS_DEBUG defaults to on; false turns it off", (t) => {
  t.true(readFeatureFlagsEnvironment({}).debug);
  t.false(readFeatureFlagsEnvironment({ FEATURE_FLAGS_DEBUG: "false" }).debug);
});

test("a wrong FEATURE_FLAGS_DEBUG is reported by name", (t) => {
  const error = t.throws(() => readFeatureFlagsEnvironment({ FEATURE_FLAGS_DEBUG: "maybe" }));
  t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT));
  t.true(error!.message.includes("FEATURE_FLAGS_DEBUG"));
});
