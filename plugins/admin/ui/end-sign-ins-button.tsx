import { useNotify } from "ra-core";
import type { AdminModel, AdminRecord } from "./api-types";
import { useApiClient } from "./admin-context";
import { ConfirmButton } from "./confirm-button";

/**
 * "End all sign-ins" on a user's record page (`POST {routePath}/:id/end-sign-ins`), for models
 * whose config offers `endSignIns`: a lost phone, an account someone else got into. Asked twice;
 * the user's password stays, their devices must sign in again.
 */
export function EndSignInsButton({ model, record, label }: { model: AdminModel; record: AdminRecord; label: string }) {
  const api = useApiClient();
  const notify = useNotify();
  const control = model.actions.endSignIns;
  if (!control) return null;
  const end = async () => {
    try {
      await api.request(`${model.routePath}/${encodeURIComponent(record.id)}/end-sign-ins`, { method: "POST" });
      notify(`Every sign-in of “${label}” has ended: their devices sign in again (the password is unchanged).`, { type: "success" });
    } catch (failure) {
      notify(failure instanceof Error ? failure.message : "ra.notification.http_error", { type: "error" });
    }
  };
  return (
    <section aria-labelledby="sign-ins-title">
      <h2 id="sign-ins-title">Sign-ins</h2>
      <ConfirmButton
        label="End all sign-ins"
        question={`Sign “${label}” out on every device? Their password stays the same.`}
        confirmLabel="Yes, end them"
        disabled={control.disabled}
        disabledReason={control.disabled ? `Your account may not end sign-ins of ${model.displayName.toLowerCase()} (it needs full write access to them).` : undefined}
        onConfirm={end}
        danger={false}
      />
    </section>
  );
}
