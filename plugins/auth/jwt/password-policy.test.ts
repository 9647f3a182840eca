import test from "ava";
import { AuthErrors } from "../errors.js";
import { checkPasswordPolicy } from "./password-policy.js";

test("both bounds count characters (code points), not UTF-16 units", (t) => {
  const emoji = "🔑"; // one character, two UTF-16 units
  t.notThrows(() => checkPasswordPolicy(emoji.repeat(8), { minLength: 8, maxLength: 10 }));
  t.notThrows(() => checkPasswordPolicy(emoji.repeat(10), { minLength: 8, maxLength: 10 }));
  const tooLong = t.throws(() => checkPasswordPolicy(emoji.repeat(11), { minLength: 8, maxLength: 10 })) as { code?: string; meta?: unknown };
  t.is(tooLong.code, AuthErrors.WEAK_PASSWORD.code);
  t.deepEqual(tooLong.meta, { minLength: 8, maxLength: 10 });
  t.is((t.throws(() => checkPasswordPolicy(emoji.repeat(7), {})) as { code?: string }).code, AuthErrors.WEAK_PASSWORD.code);
  t.notThrows(() => checkPasswordPolicy(emoji.repeat(256), {}));
});
