// svc/sync/testing: test doubles for apps that use the sync client.
export { createFakeTransport, type FakeResponse, type FakeTransport, type FakeTransportOptions } from "./fake-transport.js";
export { createTabLocks } from "./tab-locks.js";
