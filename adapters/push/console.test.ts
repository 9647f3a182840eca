import { ConsolePushSender } from "./console.js";
import { pushConformance } from "./test-support/push-conformance.js";

pushConformance("console", () => ({ adapter: new ConsolePushSender(), targets: [{ token: "a", kind: "expo" }, { token: "b", kind: "webpush" }] }));
