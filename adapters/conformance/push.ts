import type { ConformanceTest } from "./conformance-test.js";
import type { PushSender, PushTarget } from "../../contracts/push.js";
import { arrangedAdapter, assertResultShape, FAILURE_CLASSES, type AdapterUnderTest } from "./mailer.js";

/** A push adapter under test, with the targets it serves (real tokens or subscriptions). */
export interface PushSenderUnderTest extends AdapterUnderTest<PushSender> {
  targets: readonly PushTarget[];
}

/**
 * The shared suite every push adapter passes: one result per target, in order, each classified;
 * arranged failures apply to every target of the send; `validateToken`, when the adapter has it,
 * takes the targets it is tested with.
 *
 * @example
 * pushConformance(test, "console", () => ({ adapter: new ConsolePushSender(), targets: [{ token: "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]", kind: "expo" }] }));
 */
export function pushConformance(test: ConformanceTest, name: string, create: () => PushSenderUnderTest | Promise<PushSenderUnderTest>): void {
  test.serial(`${name} push: one accepted result per target, in order`, async (t) => {
    const under = await arrangedAdapter(t, name, create, "accepted");
    for (const target of under.targets) {
      t.true(under.adapter.supports(target.kind));
      // The tokens it is tested with are ones a device could register with it.
      t.is(under.adapter.validateToken?.(target.kind, target.token), undefined);
    }
    const results = await under.adapter.sendPush({ targets: under.targets, title: "Conformance", body: "Hello", data: { a: 1 } });
    t.is(results.length, under.targets.length);
    results.forEach((result, index) => {
      assertResultShape(t, result);
      t.true(result.accepted);
      t.is(result.token, under.targets[index]!.token);
    });
  });

  for (const errorClass of FAILURE_CLASSES) {
    test.serial(`${name} push: a ${errorClass} failure is classified ${errorClass}`, async (t) => {
      const under = await arrangedAdapter(t, name, create, errorClass);
      if (!under) return;
      const results = await under.adapter.sendPush({ targets: under.targets.slice(0, 1), title: "Conformance" });
      t.is(results.length, 1);
      assertResultShape(t, results[0]!);
      t.is(results[0]!.errorClass, errorClass);
    });
  }

  test.serial(`${name} push: a malformed provider answer is a refusal per target, not a throw`, async (t) => {
    const under = await arrangedAdapter(t, name, create, "malformed");
    if (!under) return;
    const results = await under.adapter.sendPush({ targets: under.targets.slice(0, 1), title: "Conformance" });
    t.is(results.length, 1);
    assertResultShape(t, results[0]!);
    t.false(results[0]!.accepted);
  });

  test.serial(`${name} push: no targets, no results`, async (t) => {
    const under = await create();
    t.teardown(() => under.cleanup?.());
    t.deepEqual(await under.adapter.sendPush({ targets: [] }), []);
  });
}
