import type { ConformanceTest } from "./conformance-test.js";
import type { SmsMessage, SmsSender } from "../../contracts/sms.js";
import { arrangedAdapter, assertResultShape, FAILURE_CLASSES, type AdapterUnderTest } from "./mailer.js";

const SMS: SmsMessage = { to: "+14155550100", from: "+14155550199", body: "Conformance" };

/**
 * The shared suite every SMS adapter passes (see `mailerConformance` for the arrangements).
 *
 * @example
 * smsConformance(test, "console", () => ({ adapter: new ConsoleSmsSender() }));
 */
export function smsConformance(test: ConformanceTest, name: string, create: () => AdapterUnderTest<SmsSender> | Promise<AdapterUnderTest<SmsSender>>): void {
  test.serial(`${name} sms: an accepted send carries the provider's message id`, async (t) => {
    const under = await arrangedAdapter(t, name, create, "accepted");
    const result = await under.adapter.sendSms(SMS);
    assertResultShape(t, result);
    t.true(result.accepted);
    t.is(typeof result.providerMessageId, "string");
  });

  for (const errorClass of FAILURE_CLASSES) {
    test.serial(`${name} sms: a ${errorClass} failure is classified ${errorClass}`, async (t) => {
      const under = await arrangedAdapter(t, name, create, errorClass);
      if (!under) return;
      const result = await under.adapter.sendSms(SMS);
      assertResultShape(t, result);
      t.is(result.errorClass, errorClass);
    });
  }

  test.serial(`${name} sms: a malformed provider answer is a refusal, not a throw`, async (t) => {
    const under = await arrangedAdapter(t, name, create, "malformed");
    if (!under) return;
    const result = await under.adapter.sendSms(SMS);
    assertResultShape(t, result);
    t.false(result.accepted);
  });
}
