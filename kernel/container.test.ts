import test from "ava";
import { ContainerErrors, SvcContainer, token } from "./container.js";
import { hasErrorCode } from "./errors.js";

interface Mailer {
  send(to: string): string;
}
const MAILER = token<Mailer>("test.Mailer");

test("a plain second bind is refused; override swaps the adapter", (t) => {
  const container = SvcContainer.create();
  container.bind(MAILER, { useValue: { send: (to) => `smtp:${to}` } });
  const error = t.throws(() => container.bind(MAILER, { useValue: { send: (to) => `fake:${to}` } }));
  t.true(hasErrorCode(error, ContainerErrors.ALREADY_BOUND));
  t.regex(error!.message, /test\.Mailer/);
  container.override(MAILER, { useValue: { send: (to) => `fake:${to}` } });
  t.is(container.resolve(MAILER).send("a@b.c"), "fake:a@b.c");
});

test("resolving an unbound token names it", (t) => {
  const container = SvcContainer.create();
  const error = t.throws(() => container.resolve(MAILER));
  t.true(hasErrorCode(error, ContainerErrors.NOT_BOUND));
  t.is(container.tryResolve(MAILER), undefined);
});

test("factories are singletons unless transient, and receive the container", (t) => {
  const container = SvcContainer.create();
  const COUNT = token<{ n: number }>("test.Count");
  const FRESH = token<{ n: number }>("test.Fresh");
  let made = 0;
  container.bind(COUNT, { useFactory: () => ({ n: ++made }) });
  container.bind(FRESH, { useFactory: (c) => ({ n: c.resolve(COUNT).n + 100 }), transient: true });
  t.is(container.resolve(COUNT), container.resolve(COUNT));
  t.not(container.resolve(FRESH), container.resolve(FRESH));
  t.is(made, 1);
});

test("a child sees its parent's bindings and may override them locally", (t) => {
  const parent = SvcContainer.create();
  parent.bind(MAILER, { useValue: { send: () => "parent" } });
  const child = parent.createChild();
  t.is(child.resolve(MAILER).send(""), "parent");
  child.bind(MAILER, { useValue: { send: () => "child" } });
  t.is(child.resolve(MAILER).send(""), "child");
  t.is(parent.resolve(MAILER).send(""), "parent");
});
