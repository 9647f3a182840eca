import type { ConformanceTest } from "./conformance-test.js";
import type { VerificationSender } from "../../contracts/verification.js";
import { arrangedAdapter, assertResultShape, FAILURE_CLASSES, type AdapterUnderTest } from "./mailer.js";

/**
 * A verifier under test; `approvedCode` is a code its provider approves. `arrange.accepted`
 * arranges both the start and the check of that code; with nock, match the code in the check's
 * body, so the wrong-code test's check is not answered "approved" by it.
 */
export interface VerificationSenderUnderTest extends AdapterUnderTest<VerificationSender> {
  approvedCode: string;
  /** Arranges the provider's answer to a wrong code (real providers only). */
  arrangeRejectedCheck?: () => unknown;
}

/**
 * The shared suite every verification adapter passes: a started verification approves the right
 * code and not a wrong one; failures are classified; nothing throws.
 *
 * @example
 * verificationConformance(test, "console", () => ({ adapter: new ConsoleVerificationSender(), approvedCode: "000000" }));
 */
export function verificationConformance(test: ConformanceTest, name: string, create: () => VerificationSenderUnderTest | Promise<VerificationSenderUnderTest>): void {
  const to = "+14155550100";
  test.serial(`${name} verification: start, then the right code is approved`, async (t) => {
    const under = await arrangedAdapter(t, name, create, "accepted");
    const started = await under.adapter.startVerification({ to, channel: "sms" });
    assertResultShape(t, started);
    t.true(started.accepted);
    const checked = await under.adapter.checkVerification({ to, code: under.approvedCode });
    assertResultShape(t, checked);
    t.true(checked.accepted);
    t.true(checked.approved);
  });

  test.serial(`${name} verification: a wrong code is not approved`, async (t) => {
    const under = await arrangedAdapter(t, name, create, "accepted");
    await under.adapter.startVerification({ to, channel: "sms" });
    await under.arrangeRejectedCheck?.();
    const checked = await under.adapter.checkVerification({ to, code: `${under.approvedCode}9` });
    assertResultShape(t, checked);
    t.false(checked.approved);
  });

  test.serial(`${name} verification: a malformed provider answer is a refusal, not a throw`, async (t) => {
    const under = await arrangedAdapter(t, name, create, "malformed");
    if (!under) return;
    const result = await under.adapter.startVerification({ to, channel: "sms" });
    assertResultShape(t, result);
    t.false(result.accepted);
  });

  for (const errorClass of FAILURE_CLASSES) {
    test.serial(`${name} verification: a ${errorClass} failure is classified ${errorClass}`, async (t) => {
      const under = await arrangedAdapter(t, name, create, errorClass);
      if (!under) return;
      const result = await under.adapter.startVerification({ to, channel: "sms" });
      assertResultShape(t, result);
      t.is(result.errorClass, errorClass);
    });
  }
}
