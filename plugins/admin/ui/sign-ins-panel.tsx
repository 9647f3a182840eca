import { useNotify } from "ra-core";
import { useCallback, useEffect, useState } from "react";
import type { AdminModel, AdminRecord } from "./api-types";
import { useApiClient } from "./admin-context";
import { ConfirmButton } from "./confirm-button";

/** One device of the user, as `GET {routePath}/:id/sign-ins` lists it. */
interface SignIn {
  readonly id: string;
  readonly signedInAt: string;
  readonly lastActiveAt: string;
  readonly userAgent?: string;
  readonly ip?: string;
}

const when = (iso: string) => new Date(iso).toLocaleString();

/**
 * "Sign-ins" on a user's record page, for models whose config offers `endSignIns`: the user's
 * devices (`GET {routePath}/:id/sign-ins`), each with "Sign out" (a lost phone: `DELETE
 * .../sign-ins/:signInId`), and "End all sign-ins" (an account someone else got into: `POST
 * .../end-sign-ins`). Each asked twice; the user's password stays.
 */
export function SignInsPanel({ model, record, label }: { model: AdminModel; record: AdminRecord; label: string }) {
  const api = useApiClient();
  const notify = useNotify();
  const control = model.actions.endSignIns;
  const base = `${model.routePath}/${encodeURIComponent(record.id)}`;
  const allowed = control !== undefined && !control.disabled;
  const [signIns, setSignIns] = useState<readonly SignIn[] | undefined>(undefined);
  const failed = useCallback((failure: unknown) => notify(failure instanceof Error ? failure.message : "ra.notification.http_error", { type: "error" }), [notify]);
  const load = useCallback(async () => {
    if (!allowed) return;
    setSignIns((await api.request<{ data: SignIn[] }>(`${base}/sign-ins`)).data);
  }, [allowed, api, base]);
  useEffect(() => void load().catch(failed), [load, failed]);
  if (!control) return null;

  const endAll = async () => {
    try {
      await api.request(`${base}/end-sign-ins`, { method: "POST" });
      notify(`Every sign-in of “${label}” has ended: their devices sign in again (the password is unchanged).`, { type: "success" });
      await load();
    } catch (failure) {
      failed(failure);
    }
  };
  const endOne = (signIn: SignIn) => async () => {
    try {
      await api.request(`${base}/sign-ins/${encodeURIComponent(signIn.id)}`, { method: "DELETE" });
      notify(`“${label}” is signed out on ${signIn.userAgent ?? "that device"}.`, { type: "success" });
      await load();
    } catch (failure) {
      failed(failure);
    }
  };
  return (
    <section aria-labelledby="sign-ins-title">
      <h2 id="sign-ins-title">Sign-ins</h2>
      {signIns === undefined ? null : signIns.length === 0 ? (
        <p className="hint">No device is signed in.</p>
      ) : (
        <div className="table-wrap">
          <table aria-labelledby="sign-ins-title">
            <thead>
              <tr>
                <th scope="col">Device</th>
                <th scope="col">IP</th>
                <th scope="col">Signed in</th>
                <th scope="col">Last active</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {signIns.map((signIn) => (
                <tr key={signIn.id}>
                  <td>{signIn.userAgent ?? "Unknown device"}</td>
                  <td>{signIn.ip ?? ""}</td>
                  <td>{when(signIn.signedInAt)}</td>
                  <td>{when(signIn.lastActiveAt)}</td>
                  <td>
                    <ConfirmButton
                      label="Sign out"
                      question={`Sign “${label}” out on ${signIn.userAgent ?? "this device"}?`}
                      confirmLabel="Yes, sign out"
                      onConfirm={endOne(signIn)}
                      danger={false}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmButton
        label="End all sign-ins"
        question={`Sign “${label}” out on every device? Their password stays the same.`}
        confirmLabel="Yes, end them"
        disabled={control.disabled}
        disabledReason={control.disabled ? `Your account may not end sign-ins of ${model.displayName.toLowerCase()} (it needs full write access to them).` : undefined}
        onConfirm={endAll}
        danger={false}
      />
    </section>
  );
}
