/**
 * The assertions the conformance suites use: a subset of ava's `t`, written out so the published
 * suites need no test runner at run time or in their types.
 */
export interface ConformanceAssertions {
  is(actual: unknown, expected: unknown, message?: string): unknown;
  not(actual: unknown, expected: unknown, message?: string): unknown;
  true(actual: boolean, message?: string): unknown;
  false(actual: boolean, message?: string): unknown;
  deepEqual(actual: unknown, expected: unknown, message?: string): unknown;
  like(actual: unknown, selector: Record<string, unknown>, message?: string): unknown;
  notThrows(fn: () => unknown, message?: string): unknown;
  pass(message?: string): void;
  fail(message?: string): void;
  /** Runs `fn` after the test, whether it passed or not. */
  teardown(fn: () => unknown): void;
}

/** One test's body. */
export type ConformanceImplementation = (t: ConformanceAssertions) => Promise<void> | void;

/**
 * How a suite declares its tests: pass ava's default export (`import test from "ava"`). Suites
 * whose arrangements are process-wide (nock) declare theirs with `serial`.
 *
 * @example
 * import test from "ava";
 * mailerConformance(test, "acme", () => ({ adapter: new AcmeMailer() }));
 */
export interface ConformanceTest {
  (title: string, implementation: ConformanceImplementation): void;
  serial(title: string, implementation: ConformanceImplementation): void;
}
