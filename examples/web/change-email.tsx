// "Change your email": the current password and the new address; the server mails a
// confirmation link there (POST /auth/change_email), and nothing changes until it is followed.
import { useState } from "react";
import { ErrorAlert, Notice } from "./alerts.js";
import { inputValue } from "./browser.js";
import { requestEmailChange, type Session } from "./session.js";
import { useAction } from "./use-action.js";

/** A collapsed panel with the change form; what the server answered is said below it. */
export function ChangeEmail({ session }: { session: Session }) {
  const [newEmail, setNewEmail] = useState("");
  const [password, setPassword] = useState("");
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const { busy, error, run } = useAction();
  return (
    <details data-testid="change-email" className="devices">
      <summary>Change your email</summary>
      <form
        className="sign-in"
        onSubmit={(event) => {
          event.preventDefault();
          setNotice(undefined);
          const address = newEmail.trim();
          run(async () => {
            await requestEmailChange(session, address, password);
            setPassword("");
            setNotice(`A confirmation link is on its way to ${address}; your email changes once you follow it. (This demo sends no mail: the server prints the link in its terminal.)`);
          });
        }}
      >
        <label>
          New email
          <input data-testid="new-email" type="email" autoComplete="email" required value={newEmail} onChange={(event) => setNewEmail(inputValue(event))} />
        </label>
        <label>
          Current password
          <input data-testid="current-password" type="password" autoComplete="current-password" required value={password} onChange={(event) => setPassword(inputValue(event))} />
        </label>
        <div className="actions">
          <button data-testid="send-email-change" disabled={busy}>
            Send the confirmation link
          </button>
        </div>
      </form>
      <Notice text={notice} />
      <ErrorAlert text={error} />
    </details>
  );
}
