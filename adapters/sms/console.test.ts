import { ConsoleSmsSender } from "./console.js";
import { smsConformance } from "./test-support/sms-conformance.js";

smsConformance("console", () => ({ adapter: new ConsoleSmsSender() }));
