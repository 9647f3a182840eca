import { useNotify } from "ra-core";
import { useState, type FormEvent } from "react";
import { ApiError } from "./api-client";
import type { AdminModel, AdminRecord } from "./api-types";
import { useApiClient } from "./admin-context";

/**
 * "Set password" on a user's record page (`POST {routePath}/:id/password`), for models whose
 * config offers `setPassword`. The password is never kept past the request: the input is cleared
 * on success. The server's policy decides what is weak; its 400 is shown on the field.
 */
export function SetPasswordForm({ model, record, label }: { model: AdminModel; record: AdminRecord; label: string }) {
  const api = useApiClient();
  const notify = useNotify();
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const control = model.actions.setPassword;
  if (!control) return null;
  const disabledReason = control.disabled ? `Your account may not set passwords of ${model.displayName.toLowerCase()} (it needs full write access to them).` : undefined;
  const describedBy = [disabledReason ? "set-password-reason" : "", error ? "set-password-error" : ""].filter(Boolean).join(" ") || undefined;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (password === "") {
      setError("Required");
      return;
    }
    setError(undefined);
    setBusy(true);
    try {
      await api.request(`${model.routePath}/${encodeURIComponent(record.id)}/password`, { method: "POST", body: { password } });
      setPassword("");
      notify(`Password set for “${label}”. Their sign-ins have been ended: they sign in again with the new password.`, { type: "success" });
    } catch (failure) {
      // The policy's refusal (and any other 400) belongs on the field; the rest is a notification.
      if (failure instanceof ApiError && failure.status === 400) setError(failure.message);
      else notify(failure instanceof Error ? failure.message : "ra.notification.http_error", { type: "error" });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="set-password-title">
      <h2 id="set-password-title">Set password</h2>
      <form className="record-form set-password" onSubmit={submit} noValidate aria-label="Set password">
        <div className="field">
          <label htmlFor="set-password-input">New password</label>
          <input
            id="set-password-input"
            type="password"
            autoComplete="new-password"
            value={password}
            maxLength={256}
            disabled={disabledReason !== undefined || busy}
            aria-invalid={error ? true : undefined}
            aria-describedby={describedBy}
            onChange={(event) => setPassword(event.target.value)}
          />
          {error ? (
            <p id="set-password-error" className="field-error">
              {error}
            </p>
          ) : null}
        </div>
        <div className="form-actions">
          <button type="submit" className="button-primary" disabled={disabledReason !== undefined || busy}>
            {busy ? "Setting…" : "Set password"}
          </button>
          {disabledReason ? (
            <span id="set-password-reason" className="hint">
              {disabledReason}
            </span>
          ) : null}
        </div>
      </form>
    </section>
  );
}
