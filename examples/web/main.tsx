// The web demo's entry (bundled by esbuild into .svc/web, served at /app): sign in, then the todo
// app over a sync client with encrypted IndexedDB persistence (the client's default in browsers).
import { useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { createSyncDb, type SyncDb } from "../../plugins/sync/client/index.js";
import { SyncDbProvider } from "../../plugins/sync/react/index.js";
import { browser, inputValue } from "./browser.js";
import { forgetSession, loadSession, sessionAuth, signIn, type Session } from "./session.js";
import { SYNC_COLLECTIONS } from "./sync-hooks.js";
import { TodoApp } from "./todo-app.js";

function SignIn({ onSession }: { onSession: (session: Session) => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | undefined>(undefined);
  const submit = (mode: "login" | "signup") => () =>
    void signIn(mode, email, password).then(onSession, (failure: unknown) => setError(failure instanceof Error ? failure.message : String(failure)));
  return (
    <main>
      <h1>svc todos</h1>
      <form data-testid="sign-in" onSubmit={(event) => event.preventDefault()}>
        <input data-testid="email" type="email" placeholder="Email" value={email} onChange={(event) => setEmail(inputValue(event))} />
        <input data-testid="password" type="password" placeholder="Password" value={password} onChange={(event) => setPassword(inputValue(event))} />
        <button data-testid="login" onClick={submit("login")}>
          Sign in
        </button>
        <button data-testid="signup" onClick={submit("signup")}>
          Sign up
        </button>
      </form>
      {error ? <p data-testid="error">{error}</p> : null}
    </main>
  );
}

function SignedIn({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
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
  if (failure) return <p data-testid="error">{failure}</p>;
  if (!db) return <p data-testid="loading">Opening your todos…</p>;
  return (
    <SyncDbProvider client={db}>
      <TodoApp
        email={session.email}
        onSignOut={() => {
          void db.signOut();
          forgetSession();
          onSignOut();
        }}
      />
    </SyncDbProvider>
  );
}

function App() {
  const [session, setSession] = useState<Session | undefined>(() => loadSession());
  return session ? <SignedIn session={session} onSignOut={() => setSession(undefined)} /> : <SignIn onSession={setSession} />;
}

createRoot(browser.document.getElementById("root")!).render(<App />);
