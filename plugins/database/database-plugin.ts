import { createEmbeddedConnector } from "../../adapters/database/embedded.js";
import { DatabaseErrors } from "../../adapters/database/errors.js";
import { createExternalConnector } from "../../adapters/database/external.js";
import { awaitModelIndexes } from "../../adapters/database/indexes-ready.js";
import { checkModelConnection } from "../../adapters/database/model-connection.js";
import { DATABASE, DATABASE_CONNECTOR, type Database } from "../../contracts/database.js";
import { MODEL_REGISTRY } from "../../contracts/model-registry.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import { startedService } from "../../kernel/started-service.js";
import { readDatabaseEnvironment } from "./database-environment.js";

export interface DatabasePluginOptions {
  /** Overrides `DB_URI`/`DB_CONNECTION`. */
  uri?: string;
  /** Embedded engine data directory (e.g. `.svc/data`); in-memory when omitted. */
  dbPath?: string;
  /** Database name when the URI has none (default `svc`). */
  dbName?: string;
}

/**
 * Opens the app's database before every other plugin and closes it after them. With a URI
 * (`DB_URI`, `DB_CONNECTION` or the `uri` option) it connects to that MongoDB; without one it
 * starts the embedded engine, except in production, where a missing `DB_URI` fails the start.
 * Other plugins `dependsOn: ["database"]` and resolve `DATABASE` once it started (before, resolving
 * it throws `DATABASE_NOT_STARTED`).
 *
 * @example
 * kernel.add(databasePlugin({ dbPath: ".svc/data" }));
 */
export function databasePlugin(options: DatabasePluginOptions = {}): SvcPlugin {
  let open: (Database & { close(): Promise<void> }) | undefined;
  const release = async (): Promise<void> => {
    const closing = open;
    open = undefined;
    await closing?.close();
  };

  return {
    name: "database",
    register(ctx) {
      // Read even when `uri` is given: a malformed variable is a deployment mistake either way.
      const env = readDatabaseEnvironment(ctx.config.env);
      const uri = options.uri ?? env.uri;
      if (uri === undefined && ctx.config.isProduction) throw DatabaseErrors.URI_REQUIRED();
      ctx.container.bind(DATABASE_CONNECTOR, {
        useFactory: () =>
          uri !== undefined
            ? createExternalConnector({ uri, dbName: options.dbName })
            : createEmbeddedConnector({ dbPath: options.dbPath, dbName: options.dbName }),
      });
      ctx.container.bind(DATABASE, startedService(() => open, DatabaseErrors.NOT_STARTED));
    },
    async start(ctx) {
      const opened = await ctx.resolve(DATABASE_CONNECTOR).open();
      open = { ...opened, inMemory: opened.inMemory ?? false, checkModel: (model, usedBy) => checkModelConnection(opened.connection, model, usedBy) };
      ctx.logger.info(`Database connected: ${open.displayUri}`);
      // Every model router registered before any plugin starts: check them all now, so a second
      // mongoose copy fails here instead of hanging the first query.
      try {
        for (const entry of ctx.container.tryResolve(MODEL_REGISTRY)?.list() ?? []) open.checkModel(entry.model, `modelRouter "${entry.path}"`);
        // Serve once the unique indexes of the models declared so far exist.
        await awaitModelIndexes(Object.values(opened.connection.models), ctx.logger);
      } catch (error) {
        await release();
        throw error;
      }
    },
    stop: release,
  };
}
