/**
 * Comms benchmark: `sendMail` through the comms service — hooks, the delivery-log row (logging on,
 * on the embedded database) and the retention rules — against the same console mailer called
 * directly, in the same run. Both sides log each mail through a real winston logger (into a
 * discarding transport), as the demo's console adapter does. Sends run at a fixed concurrency in
 * alternating rounds; the ratio (service / direct throughput) is what to compare (target ≥ 0.5:
 * the difference is the log write).
 *
 * @example
 * npm run bench -- comms
 */
import { ConsoleMailer } from "../adapters/mail/console.js";
import { SvcApp } from "../hosts/svc-app.js";
import { commsMessageModel } from "../plugins/comms/comms-message-model.js";
import { commsPlugin } from "../plugins/comms/comms-plugin.js";
import { createCommsService } from "../plugins/comms/comms-service.js";
import { pushTokenModel } from "../plugins/comms/push-token-model.js";
import { discardingLogger } from "./support/discarding-logger.js";

const SENDS = 4000;
const CONCURRENCY = 32;
const ROUNDS = 3;
const TARGET = 0.5;

async function perSecond(count: number, concurrency: number, call: (index: number) => Promise<{ accepted: boolean }>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (next < count) {
      const result = await call(next++);
      if (!result.accepted) throw new Error("a benchmark send was refused");
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return count / (Number(process.hrtime.bigint() - started) / 1e9);
}

export default async function benchComms(): Promise<void> {
  const logger = discardingLogger();
  const direct = new ConsoleMailer({ logger });
  const logged = commsPlugin({ mail: new ConsoleMailer({ logger }) });
  const app = new SvcApp({ env: { NODE_ENV: "test", DISABLE_LOG_ALL_REQUESTS: "true" }, database: { dbName: "svc_bench_comms" }, handleSignals: false, logger }).register(logged);
  await app.build();
  // The same service without the log write, to show what the write costs and what the rest does.
  const unlogged = createCommsService({
    options: { logMessages: false },
    providers: { mail: [new ConsoleMailer({ logger })], sms: [], push: [], verification: [] },
    messages: commsMessageModel(),
    tokens: pushTokenModel(),
    logger,
  });
  try {
    const mail = (index: number) => ({ to: `user-${index}@example.com`, subject: "Your receipt", text: "Thanks for your order.", html: "<p>Thanks for your order.</p>" });
    const viaAdapter = (index: number) => direct.sendMail({ ...mail(index), from: "shop@example.com" });
    const services = { logged: logged.getCommsService(), unlogged };
    // A service's rate includes writing every row it logged.
    const viaService = async (service: { sendMail: typeof unlogged.sendMail; flushLog(): Promise<void> }) => {
      const started = process.hrtime.bigint();
      await perSecond(SENDS, CONCURRENCY, (index) => service.sendMail(mail(index)));
      await service.flushLog();
      return SENDS / (Number(process.hrtime.bigint() - started) / 1e9);
    };

    // Warm every path (JIT, the model's indexes, the connection pool) before timing.
    await perSecond(500, CONCURRENCY, viaAdapter);
    await perSecond(500, CONCURRENCY, (index) => services.logged.sendMail(mail(index)));
    await perSecond(500, CONCURRENCY, (index) => services.unlogged.sendMail(mail(index)));
    await services.logged.flushLog();
    let adapter = 0;
    let withLog = 0;
    let withoutLog = 0;
    for (let round = 0; round < ROUNDS; round++) {
      adapter += await perSecond(SENDS, CONCURRENCY, viaAdapter);
      withLog += await viaService(services.logged);
      withoutLog += await viaService(services.unlogged);
    }
    const rate = (total: number) => Math.round(total / ROUNDS).toString().padStart(7);
    const ratio = withLog / adapter;
    console.log(`  ${CONCURRENCY} concurrent sends, ${ROUNDS} alternating rounds of ${SENDS}, console mailer logging through winston`);
    console.log(`  sendMail  service, logged ${rate(withLog)} /s   adapter ${rate(adapter)} /s   ratio ${ratio.toFixed(2)} (${ratio >= TARGET ? "meets" : "MISSES"} target ${TARGET})`);
    console.log(`  sendMail  service, logMessages: false ${rate(withoutLog)} /s   ratio ${(withoutLog / adapter).toFixed(2)} (the rest of the difference is the row write)`);
  } finally {
    await commsMessageModel().deleteMany({});
    await app.stop();
  }
}

// Run directly: `node --import=tsx bench/comms.ts`.
if (import.meta.url === `file://${process.argv[1]}`) await benchComms();
