import "reflect-metadata";
import { container as rootContainer, instanceCachingFactory, type DependencyContainer } from "tsyringe";
import { defineErrors } from "./errors.js";

/**
 * A typed DI token. The phantom `__type` carries the bound value's type so `resolve(TOKEN)` is typed
 * without casts at call sites.
 *
 * @example
 * export const MAILER = token<Mailer>("comms.Mailer");
 */
export type Token<T> = symbol & { readonly __type?: T };

/** Creates a typed token; the description shows up in errors ("comms.Mailer is not bound"). */
export function token<T>(description: string): Token<T> {
  return Symbol(description) as Token<T>;
}

/** How a token gets its value. Factories are singletons per container unless `transient`. */
export type Provider<T> =
  | { useValue: T }
  | { useFactory: (container: SvcContainer) => T; transient?: boolean };

export const ContainerErrors = defineErrors("CONTAINER", {
  ALREADY_BOUND: {
    message: (name: string) => `${name} is already bound; use override() to replace a binding on purpose`,
  },
  NOT_BOUND: { message: (name: string) => `${name} is not bound` },
});

/**
 * The kernel's dependency container: a tsyringe child container with explicit binding rules.
 * Binding a token twice is an error unless done through `override`, so a plugin can never silently
 * replace another's service; tests and users swap adapters with `override`.
 *
 * @example
 * const c = SvcContainer.create();
 * c.bind(MAILER, { useFactory: () => new ConsoleMailer() });
 * c.override(MAILER, { useValue: fakeMailer }); // in a test
 * c.resolve(MAILER).sendMail(message);
 */
export class SvcContainer {
  private readonly inner: DependencyContainer;

  private constructor(inner: DependencyContainer) {
    this.inner = inner;
  }

  /** A fresh container, isolated from every other kernel in the process. */
  static create(): SvcContainer {
    return new SvcContainer(rootContainer.createChildContainer());
  }

  /** Binds a token; throws `CONTAINER_ALREADY_BOUND` if this container already binds it. */
  bind<T>(key: Token<T>, provider: Provider<T>): this {
    if (this.inner.isRegistered(key, false)) throw ContainerErrors.ALREADY_BOUND(describe(key));
    this.register(key, provider);
    return this;
  }

  /** Replaces (or creates) a binding on purpose: how tests and users swap an adapter. */
  override<T>(key: Token<T>, provider: Provider<T>): this {
    this.register(key, provider);
    return this;
  }

  /** Resolves a token from this container or its parents; throws `CONTAINER_NOT_BOUND`. */
  resolve<T>(key: Token<T>): T {
    if (!this.inner.isRegistered(key, true)) throw ContainerErrors.NOT_BOUND(describe(key));
    return this.inner.resolve<T>(key);
  }

  /** Resolves a token, or returns `undefined` when nothing binds it. */
  tryResolve<T>(key: Token<T>): T | undefined {
    return this.inner.isRegistered(key, true) ? this.inner.resolve<T>(key) : undefined;
  }

  /** True when this container (or a parent) binds the token. */
  isBound<T>(key: Token<T>): boolean {
    return this.inner.isRegistered(key, true);
  }

  /** A child that sees this container's bindings and may add or override its own. */
  createChild(): SvcContainer {
    return new SvcContainer(this.inner.createChildContainer());
  }

  private register<T>(key: Token<T>, provider: Provider<T>): void {
    // tsyringe keeps every registration of a token and resolves the latest, so registering again
    // is exactly "replace" for resolve().
    if ("useValue" in provider) {
      this.inner.register<T>(key, { useValue: provider.useValue });
      return;
    }
    const factory = () => provider.useFactory(this);
    this.inner.register<T>(key, {
      useFactory: provider.transient ? factory : instanceCachingFactory<T>(factory),
    });
  }
}

function describe(key: symbol): string {
  return key.description ?? key.toString();
}
