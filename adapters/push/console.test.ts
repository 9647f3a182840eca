import test from "ava";
import { ConsolePushSender } from "./console.js";
import { pushConformance } from "../conformance/push.js";

pushConformance(test, "console", () => ({ adapter: new ConsolePushSender(), targets: [{ token: "a", kind: "expo" }, { token: "b", kind: "webpush" }] }));
