import type { ConformanceTest } from "./conformance-test.js";
import type { SmsMessage, SmsSender } from "../../contracts/sms.js";
import { assertResultShape, FAILURE_CLASSES, type AdapterUnderTest } from "./mailer.js";

const SMS: SmsMessage = { to: "+14155550100", from: "+14155550199", body: "Conformance" };

/**
 * The shared suite every SMS adapter passes (see `mailerConformance` for the arrangements).
 *
 * @example
 * smsConformance(test, "console", () => ({ adapter: new ConsoleSmsSender() }));
 */
export function smsConformance(test: ConformanceTest, name: string, create: () => AdapterUnderTest<SmsSender> | Promise<AdapterUnderTest<SmsSender>>): void {
  test.serial(`${name} sms: an accepted send carries the provider's message id`, async (t) => {
    const under = await create();
    t.teardown(() => under.cleanup?.());
    await under.arrange?.accepted?.();
    const result = await under.adapter.sendSms(SMS);
    assertResultShape(t, result);
    t.true(result.accepted);
    t.is(typeof result.providerMessageId, "string");
  });

  for (const errorClass of FAILURE_CLASSES) {
    test.serial(`${name} sms: a ${errorClass} failure is classified ${errorClass}`, async (t) => {
      const under = await create();
      t.teardown(() => under.cleanup?.());
      const arrange = under.arrange?.[errorClass];
      if (!arrange) return t.pass(`${name} cannot fail with ${errorClass}`);
      await arrange();
      const result = await under.adapter.sendSms(SMS);
      assertResultShape(t, result);
      t.is(result.errorClass, errorClass);
    });
  }

  test.serial(`${name} sms: a malformed provider answer is a refusal, not a throw`, async (t) => {
    const under = await create();
    t.teardown(() => under.cleanup?.());
    if (!under.arrange?.malformed) return t.pass(`${name} has no provider answer to break`);
    await under.arrange.malformed();
    const result = await under.adapter.sendSms(SMS);
    assertResultShape(t, result);
    t.false(result.accepted);
  });
}
