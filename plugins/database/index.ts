// The database capability's public surface, re-exported by the package entry's `--- database`
// section. The connectors are adapters of the `DATABASE_CONNECTOR` port; they are re-exported here
// because the plugin's users swap them (`app.override(DATABASE_CONNECTOR, ...)`).
export { databasePlugin, type DatabasePluginOptions } from "./database-plugin.js";
export { createExternalConnector } from "../../adapters/database/external.js";
export { createEmbeddedConnector } from "../../adapters/database/embedded.js";
export { DatabaseErrors } from "../../adapters/database/errors.js";
