/**
 * The `code` of whatever `fn` throws, or `undefined` when it does not throw: tests assert error
 * codes, never message text.
 *
 * @example
 * t.is(thrownCode(() => compileFilter({ $bogus: 1 })), 2);
 */
export function thrownCode(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (e) {
    return (e as { code?: number }).code;
  }
  return undefined;
}
