// The web demo's entry (bundled by esbuild into .svc/web, served at /app): sign in, then the todo
// app over a sync client with encrypted IndexedDB persistence (the client's default in browsers).
import { useEffect, useRef, useState } from "react";
import { createRoot } from "react-dom/client";
import { createSyncDb, type SyncDb } from "../../plugins/sync/client/index.js";
import { SyncDbProvider } from "../../plugins/sync/react/index.js";
import { ErrorAlert, Notice } from "./alerts.js";
import { browser, inputValue } from "./browser.js";
import { Devices } from "./devices.js";
import { ChangeEmail } from "./change-email.js";
import { DeleteAccount } from "./delete-account.js";
import { confirmEmailChange, loadSession, reloadEmail, requestPasswordReset, resetPassword, sessionAuth, signIn, signOut, verifyEmail, type Session } from "./session.js";
import { SYNC_COLLECTIONS } from "./sync-hooks.js";
import { TodoApp } from "./todo-app.js";
import { useAction } from "./use-action.js";

/** Where to look next: the API behind the demo. */
function AboutLinks() {
  return (
    <footer>
      The REST API behind this app: <a href="/docs">API docs</a> (<a href="/openapi.json">OpenAPI document</a>). The admin API is under <code>/admin</code>, for the
      admin user printed on the server's first start (or one made with <code>npm run create-admin</code>).
    </footer>
  );
}

function SignIn({ onSession, notice: initialNotice }: { onSession: (session: Session) => void; notice?: string }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [notice, setNotice] = useState<string | undefined>(initialNotice);
  const { busy, error, setError, run } = useAction();
  const forgot = () => {
    if (email.trim() === "") {
      setError("Enter your email above first: the reset link goes there.");
      return;
    }
    run(async () => {
      await requestPasswordReset(email);
      setNotice(`If ${email.trim()} has an account, a reset link is on its way. (This demo sends no mail: the server prints the link in its terminal.)`);
    });
  };
  // Which button submitted: set by its click, which runs before the form's submit (Enter in a
  // field clicks the first one, Sign in). The submit comes only once the browser's own checks
  // (required, type="email") pass.
  const mode = useRef<"login" | "signup">("login");
  const submit = () => run(async () => onSession(await signIn(mode.current, email, password)));
  return (
    <main>
      <h1>svc todos</h1>
      <div data-testid="intro" className="intro">
        <p>A local-first todo list: your todos live in this browser (encrypted, in IndexedDB) and sync through the svc server in real time.</p>
        <ul>
          <li>Sign up with any email and password: no mail is checked.</li>
          <li>Open a second tab, or sign in from another browser, and watch changes sync.</li>
          <li>Press "Work offline", edit, then "Go online": the queued changes are sent. Edit the same todo on both sides while one is offline to see a conflict.</li>
        </ul>
      </div>
      <form
        data-testid="sign-in"
        className="sign-in"
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <label>
          Email
          <input data-testid="email" type="email" autoComplete="email" required value={email} onChange={(event) => setEmail(inputValue(event))} />
        </label>
        <label>
          Password
          {/* One form signs in and up; password managers fill the current password, the usual case. */}
          <input data-testid="password" type="password" autoComplete="current-password" required value={password} onChange={(event) => setPassword(inputValue(event))} />
        </label>
        <div className="actions">
          <button data-testid="login" disabled={busy} onClick={() => (mode.current = "login")}>
            Sign in
          </button>
          <button data-testid="signup" className="secondary" disabled={busy} onClick={() => (mode.current = "signup")}>
            Sign up
          </button>
        </div>
        <button data-testid="forgot" type="button" className="link" disabled={busy} onClick={forgot}>
          Forgot your password?
        </button>
      </form>
      <Notice text={notice} />
      <ErrorAlert text={error} />
    </main>
  );
}

/** The page a reset link opens: choose a new password, then sign in with it. */
function ResetPassword({ token, onDone }: { token: string; onDone: (notice: string) => void }) {
  const [password, setPassword] = useState("");
  const { busy, error, run } = useAction();
  return (
    <main>
      <h1>Choose a new password</h1>
      <form
        data-testid="reset"
        className="sign-in"
        onSubmit={(event) => {
          event.preventDefault();
          run(async () => {
            await resetPassword(token, password);
            onDone("Your password is changed, and every device was signed out: sign in with the new one.");
          });
        }}
      >
        <label>
          New password
          <input data-testid="new-password" type="password" autoComplete="new-password" required value={password} onChange={(event) => setPassword(inputValue(event))} />
        </label>
        <div className="actions">
          <button data-testid="set-password" disabled={busy}>
            Set the password
          </button>
          <button type="button" className="secondary" disabled={busy} onClick={() => onDone("")}>
            Cancel
          </button>
        </div>
      </form>
      <ErrorAlert text={error} />
    </main>
  );
}

/** `email` is the account's as last heard (an email change confirmed here updates it without restarting the sync client). */
function SignedIn({ session, email, onSignOut }: { session: Session; email: string; onSignOut: (notice?: string) => void }) {
  const [db, setDb] = useState<SyncDb | undefined>(undefined);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  useEffect(() => {
    const client = createSyncDb({ name: "svc-web-demo", collections: [...SYNC_COLLECTIONS], baseUrl: browser.location.origin, authProvider: sessionAuth(session), debug: true });
    let live = true;
    client.start().then(
      () => live && setDb(client),
      (error: unknown) => live && setFailure(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      live = false;
      void client.stop();
    };
  }, [session]);
  if (failure)
    return (
      <main>
        <ErrorAlert text={failure} />
      </main>
    );
  if (!db)
    return (
      <main>
        <p data-testid="loading">Opening your todos…</p>
      </main>
    );
  return (
    <SyncDbProvider client={db}>
      <TodoApp
        email={email}
        onSignOut={() => {
          void db.signOut();
          void signOut(session);
          onSignOut();
        }}
      />
      <Devices session={session} />
      <ChangeEmail session={session} />
      <DeleteAccount
        session={session}
        onDeleted={() => {
          // The server ended every sign-in; this device forgets its copy of the todos too.
          void db.signOut();
          void signOut(session);
          onSignOut("Your account and its todos are deleted.");
        }}
      />
    </SyncDbProvider>
  );
}

function App() {
  const [session, setSession] = useState<Session | undefined>(() => loadSession());
  // A reset link opens /app/?reset=<token>: that page first, whoever is signed in here.
  const [resetToken, setResetToken] = useState<string | undefined>(() => new URLSearchParams(browser.location.search).get("reset") ?? undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  // A verification link opens /app/?verify=<token>, an email-change link /app/?email_change=<token>:
  // confirmed at once, then said on whichever page shows.
  const [verified, setVerified] = useState<string | undefined>(undefined);
  const [email, setEmail] = useState<string | undefined>(session?.email);
  // The session this page holds, not a second copy from storage: a refresh through a copy would
  // leave the held one with a used refresh token, whose next use ends the sign-in.
  const current = useRef(session);
  current.current = session;
  useEffect(() => {
    const query = new URLSearchParams(browser.location.search);
    const verify = query.get("verify");
    const change = query.get("email_change");
    if (!verify && !change) return;
    browser.history.replaceState(null, "", browser.location.pathname);
    const said = (failure: unknown) => setVerified(failure instanceof Error ? failure.message : String(failure));
    if (verify) void verifyEmail(verify).then(() => setVerified("Your email is confirmed. Thank you!"), said);
    if (change) {
      void confirmEmailChange(change).then(async () => {
        const signedIn = current.current;
        const now = signedIn ? await reloadEmail(signedIn).catch(() => undefined) : undefined;
        if (now) setEmail(now);
        setVerified(now ? `Your sign-in email is now ${now}.` : "Your new email is confirmed: sign in with it from now on.");
      }, said);
    }
  }, []);
  const resetDone = (text: string) => {
    // The token leaves the address bar (and the history) once used or abandoned.
    browser.history.replaceState(null, "", browser.location.pathname);
    setResetToken(undefined);
    if (text === "") return;
    // A new password ended every sign-in, this device's included.
    if (session) void signOut(session);
    setSession(undefined);
    setNotice(text);
  };
  let page;
  if (resetToken) page = <ResetPassword token={resetToken} onDone={resetDone} />;
  else if (session)
    page = (
      <SignedIn
        session={session}
        email={email ?? session.email}
        onSignOut={(said) => {
          setSession(undefined);
          setNotice(said);
        }}
      />
    );
  else
    page = (
      <SignIn
        onSession={(signedIn) => {
          setEmail(signedIn.email);
          setSession(signedIn);
        }}
        notice={notice}
      />
    );
  return (
    <>
      {verified ? (
        <section data-testid="verified" aria-label="Email confirmation">
          <Notice text={verified} />
        </section>
      ) : null}
      {page}
      <AboutLinks />
    </>
  );
}

createRoot(browser.document.getElementById("root")!).render(<App />);
