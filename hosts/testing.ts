// `svc/testing`: what a project's own tests need — a test database (embedded, or a real MongoDB
// with SVC_TEST_DB_URI), apps wired to it with auth secrets filled in, users, and tokens obtained
// through the app's real sign-in route. docs/testing.md walks through them.
export { startTestDatabase, stopTestDatabase, resetTestDatabase, type TestDatabase } from "./testing/test-database.js";
export { createTestApp, testAppOptions, testAuthEnvironment } from "./testing/test-app.js";
export { createUser, loginAs, bearer, uniqueTestEmail, type TestAccount, type TestUserFields } from "./testing/test-accounts.js";
export { TestingErrors } from "./testing/errors.js";
export { withFailPoint, type FailPointSpec, type FailCommandData } from "./testing/with-fail-point.js";
export {
  MongoMemoryServer,
  MongoMemoryReplSet,
  type MemoryServerInstanceOptions,
  type MemoryServerInstanceInfo,
  type MemoryReplSetOptions,
} from "./testing/memory-server.js";
export { AppAccountsErrors } from "./app-accounts.js";
