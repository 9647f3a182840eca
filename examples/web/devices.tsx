// "Your devices": the signed-in user's sign-ins (GET /auth/sign_ins), each other one with a
// button that signs it out (DELETE /auth/sign_ins/{id}) — its access token stops working at once.
import { useState } from "react";
import { ErrorAlert } from "./alerts.js";
import { requestAs, type Session } from "./session.js";
import { useAction } from "./use-action.js";

interface SignIn {
  id: string;
  signedInAt: string;
  lastActiveAt: string;
  userAgent?: string;
  ip?: string;
  current: boolean;
}

const listSignIns = (session: Session) => requestAs<SignIn[]>(session, "/auth/sign_ins");
const endSignIn = (session: Session, id: string) => requestAs(session, `/auth/sign_ins/${encodeURIComponent(id)}`, { method: "DELETE" });

/** A collapsed panel; opening it loads the list, so a plain visit costs no request. */
export function Devices({ session }: { session: Session }) {
  const [signIns, setSignIns] = useState<SignIn[] | undefined>(undefined);
  const { busy, error, run } = useAction();
  const load = () => run(async () => setSignIns(await listSignIns(session)));
  return (
    <details data-testid="devices" className="devices" onToggle={(event) => (event.currentTarget as { open?: boolean }).open && load()}>
      <summary>Your devices</summary>
      <p className="hint">Where this account is signed in. Signing a device out there ends its access at once.</p>
      {signIns === undefined ? null : (
        <ul>
          {signIns.map((signIn) => (
            <li key={signIn.id} data-testid="device">
              <span>
                <strong>{signIn.current ? "This device" : (signIn.userAgent ?? "Unknown device")}</strong>
                <small>
                  {signIn.ip ? `${signIn.ip} · ` : ""}last active {new Date(signIn.lastActiveAt).toLocaleString()} · signed in {new Date(signIn.signedInAt).toLocaleString()}
                </small>
              </span>
              {signIn.current ? null : (
                <button
                  data-testid="end-sign-in"
                  className="secondary"
                  disabled={busy}
                  aria-label={`Sign out ${signIn.userAgent ?? "the unknown device"}`}
                  onClick={() =>
                    run(async () => {
                      await endSignIn(session, signIn.id);
                      setSignIns(await listSignIns(session));
                    })
                  }
                >
                  Sign out
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <ErrorAlert text={error} />
    </details>
  );
}
