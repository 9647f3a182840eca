import type { ConformanceAssertions, ConformanceTest } from "./conformance-test.js";
import type { CommsErrorClass, SendResult } from "../../contracts/comms-result.js";
import type { Mailer, MailMessage } from "../../contracts/mailer.js";

/** Provider answers a conformance run can arrange (e.g. with nock) before a send. */
export type ProviderOutcome = "accepted" | "permanent" | "transient" | "config" | "malformed";

/** An adapter under test and, for real providers, how to make the provider answer each way. */
export interface AdapterUnderTest<A> {
  adapter: A;
  /**
   * Arranges the provider's next answer; outcomes left out are not tested (console adapters arrange
   * none). What one returns is awaited and otherwise ignored, so
   * `() => nock(api).post(path).reply(202)` is an arrangement as it stands. An arrangement serves
   * one test, which may call the provider more than once (the mail suite's odd messages go out on
   * one `accepted`): with `nock.disableNetConnect()` an unarranged call fails at once instead of
   * reaching the real provider.
   */
  arrange?: Partial<Record<Exclude<ProviderOutcome, "accepted">, () => unknown>> & { accepted?: () => unknown };
  /** Runs after each test: drops what is left of the arrangements (`nock.cleanAll()`), closes servers. */
  cleanup?: () => unknown;
}

/**
 * Creates the adapter for one test (cleaned up after it) and arranges the provider's `outcome`.
 * A failure the adapter cannot arrange (console adapters arrange none) resolves to undefined,
 * the test passing with the reason; `accepted` needs no arrangement.
 *
 * @example
 * const under = await arrangedAdapter(t, name, create, "transient");
 * if (!under) return;
 */
export async function arrangedAdapter<U extends AdapterUnderTest<unknown>>(t: ConformanceAssertions, name: string, create: () => U | Promise<U>, outcome: "accepted"): Promise<U>;
export async function arrangedAdapter<U extends AdapterUnderTest<unknown>>(t: ConformanceAssertions, name: string, create: () => U | Promise<U>, outcome: ProviderOutcome): Promise<U | undefined>;
export async function arrangedAdapter<U extends AdapterUnderTest<unknown>>(t: ConformanceAssertions, name: string, create: () => U | Promise<U>, outcome: ProviderOutcome): Promise<U | undefined> {
  const under = await create();
  t.teardown(() => under.cleanup?.());
  const arrange = under.arrange?.[outcome];
  if (arrange) await arrange();
  else if (outcome !== "accepted") {
    t.pass(outcome === "malformed" ? `${name} has no provider answer to break` : `${name} cannot fail with ${outcome}`);
    return undefined;
  }
  return under;
}

/** The checks every send result passes, whatever the port. */
export function assertResultShape(t: { true(value: boolean, message?: string): void; is(a: unknown, b: unknown, message?: string): void }, result: SendResult): void {
  t.is(typeof result.accepted, "boolean", "accepted is a boolean");
  t.is(typeof result.isPermanentFailure, "boolean", "isPermanentFailure is a boolean");
  if (result.accepted) {
    t.is(result.errorClass, undefined, "an accepted result has no error class");
    t.is(result.isPermanentFailure, false);
  } else {
    t.true(typeof result.errorCode === "string" && result.errorCode.length > 0, "a refusal has an error code");
    t.true(["permanent", "transient", "config"].includes(result.errorClass as string), "a refusal has an error class");
    t.is(result.isPermanentFailure, result.errorClass === "permanent", "isPermanentFailure follows the class");
  }
}

/** Runs `body` once per arranged failure class. */
export const FAILURE_CLASSES: readonly CommsErrorClass[] = ["permanent", "transient", "config"];

const MAIL: MailMessage = { to: "ada@example.com", from: "team@example.com", subject: "Conformance", text: "Hello", html: "<p>Hello</p>" };

/**
 * The shared suite every mail adapter passes: accepted sends carry a provider message id, each
 * arranged failure is classified as arranged, a malformed provider answer and odd messages never
 * throw. Serial, because arrangements (nock) are process-wide.
 *
 * @example
 * mailerConformance(test, "console", () => ({ adapter: new ConsoleMailer() }));
 * @example
 * nock.disableNetConnect();
 * const postbox = () => nock("https://api.postbox.example").post("/v1/send");
 * mailerConformance(test, "postbox", () => ({
 *   adapter: new PostboxMailer({ apiKey: "test-key", fromEmail: "team@example.com" }),
 *   arrange: {
 *     accepted: () => { postbox().reply(202, { id: "pb-1" }); },
 *     permanent: () => { postbox().reply(422, { error: "invalid address" }); },
 *     transient: () => { postbox().reply(503); },
 *     config: () => { postbox().reply(401); },
 *     malformed: () => { postbox().reply(202, "not json"); },
 *   },
 *   cleanup: () => { nock.cleanAll(); },
 * }));
 */
export function mailerConformance(test: ConformanceTest, name: string, create: () => AdapterUnderTest<Mailer> | Promise<AdapterUnderTest<Mailer>>): void {
  test.serial(`${name} mailer: an accepted send carries the provider's message id`, async (t) => {
    const under = await arrangedAdapter(t, name, create, "accepted");
    const result = await under.adapter.sendMail(MAIL);
    assertResultShape(t, result);
    t.true(result.accepted);
    t.is(typeof result.providerMessageId, "string");
    t.is(typeof under.adapter.name, "string");
  });

  for (const errorClass of FAILURE_CLASSES) {
    test.serial(`${name} mailer: a ${errorClass} failure is classified ${errorClass}`, async (t) => {
      const under = await arrangedAdapter(t, name, create, errorClass);
      if (!under) return;
      const result = await under.adapter.sendMail(MAIL);
      assertResultShape(t, result);
      t.false(result.accepted);
      t.is(result.errorClass, errorClass);
    });
  }

  test.serial(`${name} mailer: a malformed provider answer is a refusal, not a throw`, async (t) => {
    const under = await arrangedAdapter(t, name, create, "malformed");
    if (!under) return;
    const result = await under.adapter.sendMail(MAIL);
    assertResultShape(t, result);
    t.false(result.accepted);
  });

  test.serial(`${name} mailer: odd messages resolve to a result`, async (t) => {
    const under = await arrangedAdapter(t, name, create, "accepted");
    for (const message of [{ to: [] as string[] }, { to: "not-an-address", subject: "" }] as MailMessage[]) {
      const result = await under.adapter.sendMail(message).catch((error: unknown) => t.fail(`threw ${String(error)}`));
      if (result) assertResultShape(t, result);
    }
  });
}
