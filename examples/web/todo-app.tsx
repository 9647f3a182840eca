import { useEffect, useState } from "react";
import type { SyncStatus } from "../../plugins/sync/client/index.js";
import { useConflicts, useEntityIds, useSyncDbClient, useSyncStatus } from "../../plugins/sync/react/index.js";
import { inputValue } from "./browser.js";
import { useCreateTodo, useDeleteTodo, useTodo, useUpdateTodo } from "./sync-hooks.js";

/**
 * Whether everything shown is stored on this device: `mutate()` returns before its encrypted
 * outbox row is in IndexedDB, and a reload before then would lose it. Tied to the status it was
 * confirmed for, so a new change reads "saving" from its first render.
 */
function useStoredOnDevice(status: SyncStatus): boolean {
  const db = useSyncDbClient();
  const [storedFor, setStoredFor] = useState<SyncStatus | undefined>(undefined);
  useEffect(() => {
    let live = true;
    void db.whenPersisted().then(() => live && setStoredFor(status));
    return () => {
      live = false;
    };
  }, [db, status]);
  return storedFor === status;
}

/** Online state, queue and conflicts, whether changes are stored yet, and the offline toggle. */
function StatusBar() {
  const status = useSyncStatus();
  const db = useSyncDbClient();
  const stored = useStoredOnDevice(status);
  const [offline, setOffline] = useState(false);
  const toggle = () => {
    if (offline) db.goOnline();
    else db.goOffline();
    setOffline(!offline);
  };
  return (
    <div className="status" data-testid="status">
      <span data-testid="online">{status.isOnline ? "online" : "offline"}</span>
      <span data-testid="queued">{status.queuedCount} queued</span>
      <span data-testid="conflicts">{status.conflictCount} conflicts</span>
      <span data-testid="persistence">storage: {status.persistence}</span>
      <span data-testid="stored">{stored ? "saved on this device" : "saving…"}</span>
      {/* The sign-in lapsed (a refresh was refused): nothing is sent until the user signs in again. */}
      {status.paused === "auth" ? (
        <span data-testid="auth-paused" role="alert" className="warning">
          Your sign-in has expired: sign out and in again to send your changes
        </span>
      ) : null}
      <button data-testid="offline-toggle" onClick={toggle}>
        {offline ? "Go online" : "Work offline"}
      </button>
    </div>
  );
}

function NewTodo() {
  const [create] = useCreateTodo();
  const [title, setTitle] = useState("");
  return (
    <form
      data-testid="new-todo"
      onSubmit={(event) => {
        event.preventDefault();
        if (!title.trim()) return;
        create({ title: title.trim(), done: false });
        setTitle("");
      }}
    >
      <input data-testid="new-title" aria-label="New todo" placeholder="What to do" autoComplete="off" value={title} maxLength={200} onChange={(event) => setTitle(inputValue(event))} />
      <button type="submit">Add</button>
    </form>
  );
}

/** One todo: re-renders only when this todo changes (useTodo subscribes to it alone). */
function TodoRow({ id }: { id: string }) {
  const todo = useTodo(id);
  const [update] = useUpdateTodo();
  const [remove] = useDeleteTodo();
  const [editing, setEditing] = useState<string | undefined>(undefined);
  if (!todo) return null;
  const { title, done } = todo.data;
  return (
    <li data-testid="todo" data-title={title} className={todo.isPending ? "pending" : ""}>
      <input type="checkbox" data-testid="done" aria-label={`Done: ${title}`} checked={done === true} onChange={() => update(id, { done: !done })} />
      {editing === undefined ? (
        <>
          <span data-testid="title" className={done ? "done" : ""}>
            {title}
          </span>
          <button data-testid="edit" className="secondary" aria-label={`Edit ${title}`} onClick={() => setEditing(title)}>
            Edit
          </button>
        </>
      ) : (
        <form
          className="edit"
          onSubmit={(event) => {
            event.preventDefault();
            if (editing.trim()) update(id, { title: editing.trim() });
            setEditing(undefined);
          }}
        >
          {/* Focused on opening: the Edit button that had the focus is gone. */}
          <input data-testid="edit-title" aria-label={`New title for ${title}`} autoComplete="off" autoFocus value={editing} maxLength={200} onChange={(event) => setEditing(inputValue(event))} />
          <button type="submit" data-testid="save">
            Save
          </button>
        </form>
      )}
      <button data-testid="delete" className="secondary" aria-label={`Delete ${title}`} onClick={() => remove(id)}>
        Delete
      </button>
      {todo.isPending ? <small> (not sent yet)</small> : null}
    </li>
  );
}

function TodoList() {
  // Ids only: the list re-renders when todos come, go or move, not when one changes.
  const ids = useEntityIds("todos", { sort: "title" });
  return (
    <ul className="todos" data-testid="todos">
      {ids.map((id) => (
        <TodoRow key={id} id={id} />
      ))}
    </ul>
  );
}

/** Conflicts waiting for a decision: this device's change against the server's. */
function ConflictPanel() {
  const { conflicts, resolve } = useConflicts();
  if (conflicts.length === 0) return null;
  return (
    <section className="conflicts" data-testid="conflict-panel" aria-labelledby="conflicts-heading">
      <h2 id="conflicts-heading">Conflicts</h2>
      {conflicts.map((conflict) => (
        <div key={conflict.mutationId} data-testid="conflict">
          <p>
            {conflict.code === "conflict" ? "Changed elsewhere" : `Refused (${conflict.code})`}: yours <b data-testid="mine">{conflict.operation === "delete" ? "(deleted)" : String(conflict.data?.title ?? JSON.stringify(conflict.data ?? {}))}</b>, server{" "}
            <b data-testid="theirs">{String(conflict.serverDoc?.title ?? "(deleted)")}</b>
          </p>
          <button data-testid="keep-mine" onClick={() => void resolve(conflict.mutationId, "keepMine")}>
            Keep mine
          </button>
          <button data-testid="use-server" className="secondary" onClick={() => void resolve(conflict.mutationId, "useServer")}>
            Use server
          </button>
        </div>
      ))}
    </section>
  );
}

/**
 * The demo's todo app over a started sync client (given by `SyncDbProvider`): everything reads
 * the local store, so it works the same offline.
 */
export function TodoApp({ email, onSignOut }: { email: string; onSignOut: () => void }) {
  return (
    <main>
      <header>
        <h1>Todos</h1>
        <span data-testid="user">{email}</span>
        <button data-testid="sign-out" className="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <p className="hint">
        Try: open this page in a second tab or another browser, or press "Work offline", edit, then "Go online".
      </p>
      <StatusBar />
      <ConflictPanel />
      <NewTodo />
      <TodoList />
    </main>
  );
}
