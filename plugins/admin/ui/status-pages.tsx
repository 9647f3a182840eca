import { LinkBase } from "ra-core";
import { SignOutButton } from "./sign-out-button";
import { useSettings } from "./admin-context";

export function LoadingPage() {
  return (
    <p className="loading" role="status">
      Loading…
    </p>
  );
}

export function NotFoundPage() {
  return (
    <section aria-labelledby="not-found-title">
      <h1 id="not-found-title">Not found</h1>
      <p>There is no page here, or your account cannot see it.</p>
      <p>
        <LinkBase to="/">Back to the start</LinkBase>
      </p>
    </section>
  );
}

/** A signed-in account without `admin:access`: said plainly, with a way out (no redirect loop). */
export function AccessDeniedPage({ message }: { message: string }) {
  const { appName } = useSettings();
  return (
    <section aria-labelledby="denied-title" className="denied">
      <h1 id="denied-title">Your account cannot open the admin</h1>
      <p>
        You are signed in, but your account has no access to the {appName} admin. Ask an administrator to give you access, or sign out and sign in with
        another account.
      </p>
      <p className="hint">The server said: {message}</p>
      <SignOutButton />
    </section>
  );
}
