// "Delete your account": the password confirms it (POST /auth/delete_account); the server
// deletes the account and its todos, and this device signs out.
import { useState } from "react";
import { ErrorAlert } from "./alerts.js";
import { inputValue } from "./browser.js";
import { requestAs, type Session } from "./session.js";
import { useAction } from "./use-action.js";

const deleteAccount = (session: Session, currentPassword: string) => requestAs(session, "/auth/delete_account", { method: "POST", body: { currentPassword } });

/** A collapsed panel; `onDeleted` runs once the server deleted the account. */
export function DeleteAccount({ session, onDeleted }: { session: Session; onDeleted: () => void }) {
  const [password, setPassword] = useState("");
  const { busy, error, run } = useAction();
  return (
    <details data-testid="delete-account" className="devices">
      <summary>Delete your account</summary>
      <p className="hint">Your account and all your todos are deleted, on every device. This cannot be undone.</p>
      <form
        className="sign-in"
        onSubmit={(event) => {
          event.preventDefault();
          run(async () => {
            await deleteAccount(session, password);
            onDeleted();
          });
        }}
      >
        <label>
          Current password
          <input data-testid="delete-password" type="password" autoComplete="current-password" required value={password} onChange={(event) => setPassword(inputValue(event))} />
        </label>
        <div className="actions">
          <button data-testid="delete-account-button" className="danger" disabled={busy}>
            Delete my account
          </button>
        </div>
      </form>
      <ErrorAlert text={error} />
    </details>
  );
}
