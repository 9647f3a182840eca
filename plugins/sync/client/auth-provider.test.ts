import test from "ava";
import { sessionAuthAdapter } from "./index.js";

test("sessionAuthAdapter: the session token is the token, the session's user the user, $sessionSignal the change", async (t) => {
  let session: { user: { id: string }; session: { token: string } } | null = { user: { id: "u1" }, session: { token: "s-token" } };
  const listeners: Array<() => void> = [];
  const provider = sessionAuthAdapter({
    getSession: async () => ({ data: session }),
    $store: {
      listen(signal, listener) {
        t.is(signal, "$sessionSignal");
        listeners.push(listener);
        return () => void listeners.splice(listeners.indexOf(listener), 1);
      },
    },
  });
  t.is(await provider.getToken(), "s-token");
  t.is(await provider.getUserId(), "u1");
  t.true(await provider.refresh!());
  let changes = 0;
  const stop = provider.onAuthChange(() => changes++);
  listeners.forEach((listener) => listener());
  stop();
  t.is(changes, 1);
  t.is(listeners.length, 0);
  session = null;
  t.is(await provider.getToken(), null);
  t.is(await provider.getUserId(), null);
  t.false(await provider.refresh!());
  // A client without a store still works: no change notifications.
  t.notThrows(() => sessionAuthAdapter({ getSession: async () => null }).onAuthChange(() => undefined)());
});
