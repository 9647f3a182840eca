import { useNotify } from "ra-core";
import { useState, type FormEvent } from "react";
import { ApiError } from "./api-client";
import { useApiClient } from "./admin-context";
import { usePageTitle } from "./page-title";

type Field = "current" | "next" | "again";

const LABELS: Record<Field, { label: string; autoComplete: string }> = {
  current: { label: "Current password", autoComplete: "current-password" },
  next: { label: "New password", autoComplete: "new-password" },
  again: { label: "New password, again", autoComplete: "new-password" },
};

/**
 * The signed-in person's own password (JWT sign-in: `POST /auth/change_password`). The server
 * checks the current password and the policy; its refusals are said on their field. On success
 * this tab keeps working on the new sign-in the server answers with, and every other sign-in of
 * the account has ended. Passwords are cleared once sent, whatever the answer.
 */
export function ChangePasswordPage() {
  usePageTitle("Change password");
  const api = useApiClient();
  const notify = useNotify();
  const [values, setValues] = useState<Record<Field, string>>({ current: "", next: "", again: "" });
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found: Partial<Record<Field, string>> = {};
    for (const field of ["current", "next", "again"] as const) if (values[field] === "") found[field] = "Required";
    if (!found.again && values.again !== values.next) found.again = "The two new passwords differ";
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      await api.changePassword(values.current, values.next);
      notify("Password changed. Your other sign-ins have ended; this one goes on.", { type: "success" });
    } catch (failure) {
      // 403: the current password is wrong; 400: the new one is outside the policy.
      if (failure instanceof ApiError && failure.status === 403) setErrors({ current: failure.message });
      else if (failure instanceof ApiError && failure.status === 400) setErrors({ next: failure.message });
      else notify(failure instanceof Error ? failure.message : "ra.notification.http_error", { type: "error" });
    } finally {
      setValues({ current: "", next: "", again: "" });
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="change-password-title" className="tool-page">
      <h1 id="change-password-title">Change password</h1>
      <form className="record-form" onSubmit={submit} noValidate aria-label="Change password">
        {(["current", "next", "again"] as const).map((field) => (
          <div className="field" key={field}>
            <label htmlFor={`password-${field}`}>{LABELS[field].label}</label>
            <input
              id={`password-${field}`}
              type="password"
              autoComplete={LABELS[field].autoComplete}
              value={values[field]}
              maxLength={1024}
              disabled={busy}
              aria-invalid={errors[field] ? true : undefined}
              aria-describedby={errors[field] ? `password-${field}-error` : undefined}
              onChange={(event) => setValues((current) => ({ ...current, [field]: event.target.value }))}
            />
            {errors[field] ? (
              <p id={`password-${field}-error`} className="field-error">
                {errors[field]}
              </p>
            ) : null}
          </div>
        ))}
        <div className="form-actions">
          <button type="submit" className="button-primary" disabled={busy}>
            {busy ? "Changing…" : "Change password"}
          </button>
        </div>
      </form>
    </section>
  );
}
