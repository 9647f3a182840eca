import { defineErrors } from "../../kernel/errors.js";

/** Errors of the `svc/testing` helpers: a test set-up that cannot do what it was asked. */
export const TestingErrors = defineErrors("TESTING", {
  /** `loginAs` was refused by `POST /auth/login` (wrong password, disabled user, no JWT routes). */
  LOGIN_FAILED: {
    message: (email: string, status: number, code: string | undefined) =>
      `loginAs(${email}): POST /auth/login answered ${status}${code ? ` ${code}` : ""}`,
  },
});
