import test from "ava";
import { ConsoleSmsSender } from "./console.js";
import { smsConformance } from "../conformance/sms.js";

smsConformance(test, "console", () => ({ adapter: new ConsoleSmsSender() }));
