import test from "ava";
import { ContainerErrors, token } from "./container.js";
import { loadConfig } from "./config.js";
import { ConfigErrors, num, readEnvironment } from "./environment.js";
import { hasErrorCode } from "./errors.js";
import { KernelErrors } from "./kernel-errors.js";
import { SvcKernel } from "./kernel.js";
import type { SvcPlugin } from "./plugin.js";

const config = loadConfig({ NODE_ENV: "test" });
const silent = { debug() {}, info() {}, warn() {}, error() {} };

function recorder() {
  const events: string[] = [];
  const plugin = (name: string, extra: Partial<SvcPlugin> = {}): SvcPlugin => ({
    name,
    register: () => void events.push(`register:${name}`),
    start: () => void events.push(`start:${name}`),
    stop: () => void events.push(`stop:${name}`),
    ...extra,
  });
  return { events, plugin };
}

test("start follows dependsOn and stop is the exact reverse", async (t) => {
  const { events, plugin } = recorder();
  const kernel = new SvcKernel({ config, logger: silent });
  kernel
    .add(plugin("rest", { dependsOn: ["database", "auth"] }))
    .add(plugin("auth", { dependsOn: ["database"] }))
    .add(plugin("database"))
    .add(plugin("metrics"));
  await kernel.start();
  t.deepEqual(kernel.startOrder, ["database", "auth", "rest", "metrics"]);
  t.is(kernel.state, "started");
  await kernel.stop();
  t.deepEqual(events, [
    "register:database", "register:auth", "register:rest", "register:metrics",
    "start:database", "start:auth", "start:rest", "start:metrics",
    "stop:metrics", "stop:rest", "stop:auth", "stop:database",
  ]);
  t.is(kernel.state, "stopped");
});

test("a plugin failing in start stops only the plugins that started, in reverse", async (t) => {
  const { events, plugin } = recorder();
  const kernel = new SvcKernel({ config, logger: silent });
  const boom = new Error("cannot connect");
  kernel
    .add(plugin("a"))
    .add(plugin("b", { dependsOn: ["a"] }))
    .add(plugin("c", { dependsOn: ["b"], start: () => Promise.reject(boom) }))
    .add(plugin("d", { dependsOn: ["c"] }));
  const error = await t.throwsAsync(() => kernel.start());
  t.is((error as { code?: string }).code, KernelErrors.PHASE_FAILED.code);
  t.is(error?.cause, boom);
  t.deepEqual(events.filter((e) => !e.startsWith("register")), ["start:a", "start:b", "stop:b", "stop:a"]);
  t.is(kernel.state, "failed");
  await kernel.stop(); // a failed kernel has nothing left to stop
  t.is(events.filter((e) => e.startsWith("stop")).length, 2);
});

test("a missing dependency is refused with its code", async (t) => {
  const kernel = new SvcKernel({ config, logger: silent });
  kernel.add({ name: "rest", dependsOn: ["database"], start() {} });
  const error = await t.throwsAsync(() => kernel.start());
  t.true(hasErrorCode(error, KernelErrors.MISSING_DEPENDENCY));
});

test("a dependency cycle is refused with its code", (t) => {
  const kernel = new SvcKernel({ config, logger: silent });
  kernel.add({ name: "a", dependsOn: ["b"], start() {} }).add({ name: "b", dependsOn: ["a"], start() {} });
  const error = t.throws(() => kernel.register());
  t.true(hasErrorCode(error, KernelErrors.DEPENDENCY_CYCLE));
});

test("duplicate and badly named plugins are refused", (t) => {
  const kernel = new SvcKernel({ config, logger: silent });
  kernel.add({ name: "auth", start() {} });
  t.true(hasErrorCode(t.throws(() => kernel.add({ name: "auth", start() {} })), KernelErrors.DUPLICATE_PLUGIN));
  t.true(hasErrorCode(t.throws(() => kernel.add({ name: "Not Kebab", start() {} })), KernelErrors.INVALID_PLUGIN_NAME));
});

test("a start phase that exceeds its time limit fails with the timeout code and stops the others", async (t) => {
  const { events, plugin } = recorder();
  const kernel = new SvcKernel({ config, logger: silent, timeouts: { start: 20 } });
  kernel.add(plugin("fast")).add(plugin("slow", { start: () => new Promise(() => {}) }));
  const error = await t.throwsAsync(() => kernel.start());
  t.true(hasErrorCode(error, KernelErrors.PHASE_TIMEOUT));
  t.deepEqual(events.filter((e) => e.startsWith("stop")), ["stop:fast"]);
});

test("a stop phase that hangs is bounded, logged, and the remaining plugins still stop", async (t) => {
  const { events, plugin } = recorder();
  const logged: string[] = [];
  const logger = { ...silent, error: (message: string) => void logged.push(message) };
  const kernel = new SvcKernel({ config, logger, timeouts: { stop: 20 } });
  kernel.add(plugin("first")).add(plugin("stuck", { stop: () => new Promise(() => {}) }));
  await kernel.start();
  await kernel.stop();
  t.deepEqual(events.filter((e) => e.startsWith("stop")), ["stop:first"]);
  t.is(logged.length, 1);
  t.regex(logged[0]!, /stuck/);
});

test("lifecycle: adding after registration or stopping twice behaves predictably", async (t) => {
  const kernel = new SvcKernel({ config, logger: silent });
  kernel.add({ name: "x", start() {} });
  await kernel.start();
  t.true(hasErrorCode(t.throws(() => kernel.add({ name: "y", start() {} })), KernelErrors.WRONG_STATE));
  await t.throwsAsync(() => kernel.start(), { code: KernelErrors.WRONG_STATE.code } as never);
  await Promise.all([kernel.stop(), kernel.stop()]);
  t.is(kernel.state, "stopped");
});

test("two kernels in one process do not share bindings", (t) => {
  const GREETING = token<string>("test.Greeting");
  const one = new SvcKernel({ config, logger: silent });
  const two = new SvcKernel({ config, logger: silent });
  one.container.bind(GREETING, { useValue: "hello" });
  t.false(two.container.isBound(GREETING));
  two.container.bind(GREETING, { useValue: "bonjour" });
  t.is(one.container.resolve(GREETING), "hello");
  t.is(two.container.resolve(GREETING), "bonjour");
});

test("plugins see bindings made by plugins registered before them", async (t) => {
  const NUMBER = token<number>("test.Number");
  const kernel = new SvcKernel({ config, logger: silent });
  let seen = 0;
  kernel
    .add({ name: "consumer", dependsOn: ["provider"], start: (ctx) => void (seen = ctx.resolve(NUMBER)) })
    .add({ name: "provider", register: (ctx) => void ctx.container.bind(NUMBER, { useValue: 42 }) });
  await kernel.start();
  t.is(seen, 42);
});

test("an async register() fails the start with KERNEL_ASYNC_REGISTER, and its rejection is handled", async (t) => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  t.teardown(() => void process.off("unhandledRejection", onUnhandled));
  const kernel = new SvcKernel({ config, logger: silent });
  kernel.add({
    name: "eager",
    async register() {
      throw new Error("could not reach the network");
    },
  });
  const error = await t.throwsAsync(() => kernel.start());
  t.true(hasErrorCode(error, KernelErrors.ASYNC_REGISTER), String(error));
  t.regex(error!.message, /"eager".*register must be synchronous.*do I\/O in start\(\)/);
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.deepEqual(unhandled, []);
});

test("a coded error from a plugin's phase keeps its code and names the plugin", async (t) => {
  const MISSING = token<string>("test.Missing");
  const kernel = new SvcKernel({ config, logger: silent });
  kernel.add({ name: "consumer", start: (ctx) => void ctx.resolve(MISSING) });
  const error = await t.throwsAsync(() => kernel.start());
  t.true(hasErrorCode(error, ContainerErrors.NOT_BOUND), String(error));
  t.regex(error!.message, /^Plugin "consumer" failed to start: .*test\.Missing/);
  t.regex(error!.stack!, /^SvcError: Plugin "consumer" failed to start: /);
});

test("every plugin's malformed variables are reported in one CONFIG_INVALID_ENVIRONMENT, each naming its plugin", async (t) => {
  const { plugin } = recorder();
  const env = { NODE_ENV: "test", LOG_SLOW_MS: "three", TIMEOUT: "soon", RETRIES: "many" };
  const reading = (name: string, spec: Record<string, ReturnType<typeof num>>): SvcPlugin =>
    plugin(name, { register: () => void readEnvironment(env, spec) });
  const kernel = new SvcKernel({ config: loadConfig(env), logger: silent });
  kernel
    .add(reading("logging", { LOG_SLOW_MS: num() }))
    .add(plugin("uses-logging", { dependsOn: ["logging"], register: () => { throw new Error("a consequence of the bad logging settings"); } }))
    .add(reading("http", { TIMEOUT: num(), RETRIES: num() }));
  const error = await t.throwsAsync(kernel.start());
  t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT), error?.message);
  t.regex(error!.message, /LOG_SLOW_MS: .*\(plugin "logging"\)/);
  t.regex(error!.message, /TIMEOUT: .*\(plugin "http"\)/);
  t.regex(error!.message, /RETRIES: .*\(plugin "http"\)/);
  t.notRegex(error!.message, /consequence/);
});

test("one misconfigured plugin keeps the usual message naming it; other errors before it are thrown as they were", async (t) => {
  const { plugin } = recorder();
  const env = { NODE_ENV: "test", TIMEOUT: "soon" };
  const single = new SvcKernel({ config: loadConfig(env), logger: silent }).add(plugin("http", { register: () => void readEnvironment(env, { TIMEOUT: num() }) }));
  const error = await t.throwsAsync(single.start());
  t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT));
  t.regex(error!.message, /^Plugin "http" failed to register: Invalid environment configuration:\n {2}TIMEOUT: /);
  const first = new SvcKernel({ config: loadConfig(env), logger: silent })
    .add(plugin("database", { register: () => { throw KernelErrors.ASYNC_REGISTER("database"); } }))
    .add(plugin("http", { dependsOn: ["database"], register: () => void readEnvironment(env, { TIMEOUT: num() }) }));
  const thrown = await t.throwsAsync(first.start());
  t.true(hasErrorCode(thrown, KernelErrors.ASYNC_REGISTER), thrown?.message);
});
