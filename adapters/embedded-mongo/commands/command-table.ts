import type { CommandHandler } from "./command-context.js";
import { aggregateCommand } from "./aggregate-command.js";
import { AUTHENTICATION_COMMANDS, authenticationCommand } from "./authentication-commands.js";
import { collModCommand } from "./coll-mod-command.js";
import { collStatsCommand, createCommand, dropCommand, listCollectionsCommand, renameCollectionCommand } from "./collection-commands.js";
import { countCommand } from "./count-command.js";
import { getMoreCommand, killCursorsCommand } from "./cursor-commands.js";
import { dbStatsCommand, dropDatabaseCommand, listDatabasesCommand } from "./database-commands.js";
import { deleteCommand } from "./delete-command.js";
import { distinctCommand } from "./distinct-command.js";
import { explainCommand } from "./explain-command.js";
import { findAndModifyCommand } from "./find-and-modify-command.js";
import { findCommand } from "./find-command.js";
import { helloCommand } from "./hello-command.js";
import { createIndexesCommand, dropIndexesCommand, listIndexesCommand } from "./index-commands.js";
import { insertCommand } from "./insert-command.js";
import { replSetGetConfigCommand, replSetInitiateCommand, shutdownCommand } from "./replica-set-commands.js";
import { updateCommand } from "./update-command.js";
import { withWriteConcern } from "./write-concern.js";
import {
  buildInfoCommand,
  connectionStatusCommand,
  getCmdLineOptsCommand,
  getLogCommand,
  getParameterCommand,
  hostInfoCommand,
  pingCommand,
  replSetGetStatusCommand,
  serverStatusCommand,
  whatsMyUriCommand,
} from "./server-commands.js";
import {
  abortTransactionCommand,
  commitTransactionCommand,
  endSessionsCommand,
  killAllSessionsCommand,
  refreshSessionsCommand,
  startSessionCommand,
} from "../sessions/session-commands.js";

/**
 * Every command the engine answers, by the name a client sends (commands are case-sensitive; the
 * lower-case aliases mongod accepts are listed explicitly). Anything else → CommandNotFound (59).
 * Commands that take a write concern get its single-node outcome (`withWriteConcern`).
 *
 * @example
 * const handlers = createCommandTable();
 * handlers.get("find"); // findCommand
 */
export function createCommandTable(): Map<string, CommandHandler> {
  const table = new Map<string, CommandHandler>();
  const add = (handler: CommandHandler, ...names: string[]): void => {
    for (const name of names) table.set(name, handler);
  };
  add(helloCommand, "hello", "isMaster", "ismaster");
  add(pingCommand, "ping");
  add(buildInfoCommand, "buildInfo", "buildinfo");
  add(getParameterCommand, "getParameter");
  add(whatsMyUriCommand, "whatsmyuri");
  add(startSessionCommand, "startSession");
  add(endSessionsCommand, "endSessions", "killSessions");
  add(refreshSessionsCommand, "refreshSessions");
  add(killAllSessionsCommand, "killAllSessions", "killAllSessionsByPattern");
  add(serverStatusCommand, "serverStatus");
  add(hostInfoCommand, "hostInfo");
  add(getCmdLineOptsCommand, "getCmdLineOpts");
  add(getLogCommand, "getLog");
  add(connectionStatusCommand, "connectionStatus");
  add(authenticationCommand, ...AUTHENTICATION_COMMANDS);
  add(replSetGetStatusCommand, "replSetGetStatus");
  add(replSetInitiateCommand, "replSetInitiate");
  add(replSetGetConfigCommand, "replSetGetConfig");
  add(shutdownCommand, "shutdown");
  add(withWriteConcern(commitTransactionCommand), "commitTransaction");
  add(withWriteConcern(abortTransactionCommand), "abortTransaction");
  add(listDatabasesCommand, "listDatabases");
  add(withWriteConcern(dropDatabaseCommand), "dropDatabase");
  add(dbStatsCommand, "dbStats", "dbstats");
  add(withWriteConcern(createCommand), "create");
  add(withWriteConcern(dropCommand), "drop");
  add(withWriteConcern(renameCollectionCommand), "renameCollection");
  add(withWriteConcern(collModCommand), "collMod");
  add(listCollectionsCommand, "listCollections");
  add(collStatsCommand, "collStats", "collstats");
  add(withWriteConcern(createIndexesCommand), "createIndexes");
  add(listIndexesCommand, "listIndexes");
  add(withWriteConcern(dropIndexesCommand), "dropIndexes", "deleteIndexes");
  add(findCommand, "find");
  add(getMoreCommand, "getMore");
  add(killCursorsCommand, "killCursors");
  add(withWriteConcern(insertCommand), "insert");
  add(withWriteConcern(updateCommand), "update");
  add(withWriteConcern(findAndModifyCommand), "findAndModify", "findandmodify");
  add(withWriteConcern(deleteCommand), "delete");
  add(countCommand, "count");
  add(explainCommand, "explain");
  add(aggregateCommand, "aggregate");
  add(distinctCommand, "distinct");
  return table;
}
