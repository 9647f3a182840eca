import { ConsoleMailer } from "../adapters/mail/console.js";
import { SvcApp } from "../hosts/svc-app.js";
import { commsPlugin } from "../plugins/comms/comms-plugin.js";
import { discardingLogger } from "../bench/support/discarding-logger.js";
const logger = discardingLogger();
const logged = commsPlugin({ mail: new ConsoleMailer({ logger }) });
const app = new SvcApp({ env: { NODE_ENV: "test", DISABLE_LOG_ALL_REQUESTS: "true" }, database: { dbName: "svc_bench_comms" }, handleSignals: false, logger }).register(logged);
await app.build();
const s = logged.getCommsService();
const mail = (index: number) => ({ to: `user-${index}@example.com`, subject: "Your receipt", text: "Thanks for your order.", html: "<p>Thanks for your order.</p>" });
for (let r = 0; r < 8; r++) {
  const t = process.hrtime.bigint(); let next = 0; const N = 4000;
  await Promise.all(Array.from({ length: 32 }, async () => { while (next < N) await s.sendMail(mail(next++)); }));
  await s.flushLog();
  console.log(Math.round(N / (Number(process.hrtime.bigint() - t) / 1e9)), "/s");
}
await app.stop();
