import { startEmbeddedMongo } from "../../adapters/embedded-mongo/index.js";
import type { RunningEmbeddedMongo } from "../../adapters/embedded-mongo/index.js";
import { TestingErrors } from "./errors.js";

/** The `instance` options of mongodb-memory-server that the embedded engine honours. */
export interface MemoryServerInstanceOptions {
  /** TCP port (default: a free one). */
  readonly port?: number;
  /** Interface to listen on (default 127.0.0.1). */
  readonly ip?: string;
  /** Data directory: journaled and recovered at the next start on it. In memory when omitted. */
  readonly dbPath?: string;
  /** Replica set name reported by `hello` (the engine is always a one-member replica set). */
  readonly replSet?: string;
  /** Accepted for compatibility: the engine has one storage engine. */
  readonly storageEngine?: string;
  /** Accepted for compatibility: mongod command-line arguments mean nothing in-process. */
  readonly args?: readonly string[];
}

/** What `instanceInfo` reports, as mongodb-memory-server does. */
export interface MemoryServerInstanceInfo {
  readonly port: number;
  readonly ip: string;
  readonly dbPath: string | undefined;
  readonly replSet: string;
}

type MemoryServerState = "new" | "starting" | "running" | "stopped";

/**
 * mongodb-memory-server's `MongoMemoryServer`, in-process on the embedded engine: the same
 * `create()` / `start()` / `getUri(dbName?)` / `stop()` a project's tests already call, without
 * downloading or spawning a mongod. Change the import to migrate:
 * `import { MongoMemoryServer } from "svc/testing"`.
 *
 * @example
 * const server = await MongoMemoryServer.create();
 * await mongoose.connect(server.getUri("app"));
 * // ...
 * await mongoose.disconnect();
 * await server.stop();
 */
export class MongoMemoryServer {
  state: MemoryServerState = "new";
  private running: RunningEmbeddedMongo | undefined;

  constructor(readonly opts: { readonly instance?: MemoryServerInstanceOptions } = {}) {}

  /** Creates and starts a server. */
  static async create(opts: { readonly instance?: MemoryServerInstanceOptions } = {}): Promise<MongoMemoryServer> {
    const server = new MongoMemoryServer(opts);
    await server.start();
    return server;
  }

  async start(): Promise<void> {
    if (this.state === "running" || this.state === "starting") return;
    this.state = "starting";
    const instance = this.opts.instance ?? {};
    try {
      this.running = await startEmbeddedMongo({
        ...(instance.port !== undefined ? { port: instance.port } : {}),
        ...(instance.ip !== undefined ? { host: instance.ip } : {}),
        ...(instance.dbPath !== undefined ? { dbPath: instance.dbPath, journal: { fsync: "interval" as const } } : {}),
        ...(instance.replSet !== undefined ? { replicaSetName: instance.replSet } : {}),
      });
    } catch (error) {
      this.state = "stopped";
      throw error;
    }
    this.state = "running";
  }

  get instanceInfo(): MemoryServerInstanceInfo | undefined {
    const running = this.running;
    if (!running) return undefined;
    return { port: running.port, ip: running.host, dbPath: this.opts.instance?.dbPath, replSet: running.replicaSetName };
  }

  /** `mongodb://<ip>:<port>/<dbName>`, as mongodb-memory-server builds it. */
  getUri(otherDb?: string, otherIp?: string): string {
    const info = this.instanceInfo;
    if (!info || this.state !== "running") throw TestingErrors.MEMORY_SERVER_NOT_RUNNING("MongoMemoryServer");
    return `mongodb://${otherIp ?? info.ip}:${info.port}/${otherDb ?? ""}`;
  }

  /** Stops the engine (closing every client connection); returns whether it was running. */
  async stop(): Promise<boolean> {
    const running = this.running;
    this.running = undefined;
    this.state = "stopped";
    if (!running) return false;
    await running.stop();
    return true;
  }
}

/** The `replSet` options of mongodb-memory-server's `MongoMemoryReplSet` the engine honours. */
export interface MemoryReplSetOptions {
  /** Replica set name (default `testset`, as mongodb-memory-server). */
  readonly name?: string;
  /** Members: only 1 (the engine is one server; more fail with TESTING_REPLICA_SET_SIZE). */
  readonly count?: number;
}

/**
 * mongodb-memory-server's `MongoMemoryReplSet` with one member, in-process on the embedded
 * engine: `getUri()` carries `?replicaSet=<name>`, so transactions and change streams work as
 * against a real replica set.
 *
 * @example
 * const replSet = await MongoMemoryReplSet.create({replSet: {count: 1}});
 * await mongoose.connect(replSet.getUri("app"));
 */
export class MongoMemoryReplSet {
  state: MemoryServerState = "new";
  readonly servers: MongoMemoryServer[] = [];

  constructor(readonly opts: { readonly replSet?: MemoryReplSetOptions; readonly instanceOpts?: readonly MemoryServerInstanceOptions[] } = {}) {
    const count = opts.replSet?.count ?? 1;
    if (count !== 1) throw TestingErrors.REPLICA_SET_SIZE(count);
  }

  static async create(
    opts: { readonly replSet?: MemoryReplSetOptions; readonly instanceOpts?: readonly MemoryServerInstanceOptions[] } = {},
  ): Promise<MongoMemoryReplSet> {
    const replSet = new MongoMemoryReplSet(opts);
    await replSet.start();
    return replSet;
  }

  get name(): string {
    return this.opts.replSet?.name ?? "testset";
  }

  async start(): Promise<void> {
    if (this.state === "running" || this.state === "starting") return;
    this.state = "starting";
    const server = new MongoMemoryServer({ instance: { ...this.opts.instanceOpts?.[0], replSet: this.name } });
    try {
      await server.start();
    } catch (error) {
      this.state = "stopped";
      throw error;
    }
    this.servers.splice(0, this.servers.length, server);
    this.state = "running";
  }

  /** `mongodb://<ip>:<port>/<dbName>?replicaSet=<name>`. */
  getUri(otherDb?: string, otherIp?: string): string {
    const server = this.servers[0];
    if (!server || this.state !== "running") throw TestingErrors.MEMORY_SERVER_NOT_RUNNING("MongoMemoryReplSet");
    return `${server.getUri(otherDb, otherIp)}?replicaSet=${this.name}`;
  }

  async stop(): Promise<boolean> {
    this.state = "stopped";
    const stopped = await Promise.all(this.servers.map((server) => server.stop()));
    return stopped.some(Boolean);
  }
}
