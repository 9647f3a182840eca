import test from "ava";
import { ConsoleVerificationSender } from "./console.js";
import { verificationConformance } from "../conformance/verification.js";

verificationConformance(test, "console", () => ({ adapter: new ConsoleVerificationSender(), approvedCode: "000000" }));
