import { useAuthProvider, useLogin } from "ra-core";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useSettings } from "./admin-context";

/** The sign-in form: the app's own sign-in route (JWT or session, from the settings). */
export function SignInPage() {
  const { appName } = useSettings();
  const login = useLogin();
  const authProvider = useAuthProvider();
  // Read once: the reason stays until the next sign-in, so a reload of this page still says it.
  const [ended] = useState<string | null>(() => authProvider?.endedBecause?.() ?? null);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const email = useRef<HTMLInputElement>(null);

  useEffect(() => {
    document.title = `Sign in · ${appName} admin`;
    email.current?.focus();
  }, [appName]);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(undefined);
    try {
      await login({ email: String(form.get("email") ?? "").trim(), password: String(form.get("password") ?? "") });
    } catch (failure) {
      setError(failure instanceof Error && failure.message ? failure.message : "Signing in failed. Please try again.");
      setBusy(false);
    }
  };

  return (
    <main id="main" className="sign-in">
      <form className="sign-in-card" onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">
          {appName} <span className="app-suffix">admin</span>
        </h1>
        <p className="hint">Sign in with your account.</p>
        {error || ended ? (
          <p role="alert" className="form-error">
            {error ?? ended}
          </p>
        ) : null}
        <div className="field">
          <label htmlFor="sign-in-email">Email</label>
          <input ref={email} id="sign-in-email" name="email" type="email" autoComplete="email" required />
        </div>
        <div className="field">
          <label htmlFor="sign-in-password">Password</label>
          <input id="sign-in-password" name="password" type="password" autoComplete="current-password" required />
        </div>
        <button type="submit" className="button-primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
