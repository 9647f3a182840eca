/**
 * The embedded engine's change-stream cursor killer, shared with the framework's tests: the
 * engine keeps its own test helpers so that it imports nothing from outside its folder.
 *
 * @example
 * await killChangeStreamCursors(mongoose.connection.getClient(), `${mongoose.connection.name}.flags`);
 */
export { killChangeStreamCursors } from "../../adapters/embedded-mongo/test-support/kill-change-stream-cursors.js";
