import { ConsoleVerificationSender } from "./console.js";
import { verificationConformance } from "./test-support/verification-conformance.js";

verificationConformance("console", () => ({ adapter: new ConsoleVerificationSender(), approvedCode: "000000" }));
