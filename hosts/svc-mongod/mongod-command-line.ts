/** What `svc-mongod` understood of a `mongod` command line. */
export interface MongodCommandLine {
  readonly version: boolean;
  readonly help: boolean;
  readonly port: number;
  readonly bindIp: string;
  readonly dbPath: string | undefined;
  readonly replSet: string | undefined;
  /** `ephemeralForTest`/`inMemory` keep data in memory; any other engine journals to `dbPath`. */
  readonly inMemory: boolean;
  /** `--setParameter enableTestCommands=0|1|false|true`; undefined: the engine's default. */
  readonly enableTestCommands: boolean | undefined;
  /** Options accepted and ignored (reported on start). */
  readonly ignored: readonly string[];
}

const IN_MEMORY_ENGINES = new Set(["ephemeralForTest", "inMemory"]);

/**
 * Parses the `mongod` options tools pass (mongodb-memory-server, docker entrypoints, scripts):
 * `--port`, `--bind_ip`, `--bind_ip_all`, `--dbpath`, `--replSet`, `--storageEngine`,
 * `--setParameter enableTestCommands=…`, `--version`. Every other option is accepted and listed
 * in `ignored` (with its value when the next word is not an option), so a command line written
 * for mongod never stops the server from starting. `--opt=value` works as well.
 *
 * @example
 * parseMongodCommandLine(["--port", "27018", "--dbpath", "/tmp/x", "--noauth"]).ignored; // ["--noauth"]
 */
export function parseMongodCommandLine(argv: readonly string[]): MongodCommandLine {
  let version = false;
  let help = false;
  let port = 27017;
  let bindIp = "127.0.0.1";
  let dbPath: string | undefined;
  let replSet: string | undefined;
  let storageEngine: string | undefined;
  let enableTestCommands: boolean | undefined;
  const ignored: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const equals = word.indexOf("=");
    const name = word.startsWith("--") && equals > 0 ? word.slice(0, equals) : word;
    const inline = name !== word ? word.slice(equals + 1) : undefined;
    const takesNext = (): string | undefined => {
      if (inline !== undefined) return inline;
      const next = argv[i + 1];
      if (next === undefined || next.startsWith("--")) return undefined;
      i += 1;
      return next;
    };
    const required = (): string => {
      const value = takesNext();
      if (value === undefined) throw new Error(`svc-mongod: ${name} needs a value`);
      return value;
    };
    switch (name) {
      case "--version":
        version = true;
        break;
      case "--help":
      case "-h":
        help = true;
        break;
      case "--port": {
        const value = required();
        port = Number(value);
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`svc-mongod: invalid --port ${value}`);
        break;
      }
      case "--bind_ip":
        // mongod takes a comma-separated list; the engine listens on one interface, the first.
        bindIp = required().split(",")[0]!.trim() || "127.0.0.1";
        break;
      case "--bind_ip_all":
        bindIp = "0.0.0.0";
        break;
      case "--dbpath":
        dbPath = required();
        break;
      case "--replSet":
        replSet = required().split("/")[0];
        break;
      case "--storageEngine":
        storageEngine = required();
        break;
      case "--setParameter": {
        const value = required();
        const [key, setting] = value.split("=");
        if (key === "enableTestCommands") enableTestCommands = mongodBoolean(key, setting);
        else ignored.push(`${name} ${value}`);
        break;
      }
      default: {
        const value = word.startsWith("-") ? takesNext() : undefined;
        ignored.push(value === undefined ? word : `${name} ${value}`);
      }
    }
  }
  return {
    version,
    help,
    port,
    bindIp,
    dbPath,
    replSet,
    inMemory: dbPath === undefined || (storageEngine !== undefined && IN_MEMORY_ENGINES.has(storageEngine)),
    enableTestCommands,
    ignored,
  };
}

/**
 * A boolean server parameter as mongod reads one: `1`/`true` or `0`/`false`, anything else
 * refused in mongod's words (rather than quietly read as false).
 */
function mongodBoolean(parameter: string, setting: string | undefined): boolean {
  if (setting === "1" || setting === "true") return true;
  if (setting === "0" || setting === "false") return false;
  throw new Error(`svc-mongod: Bad value for parameter "${parameter}": Value is not a valid boolean`);
}

/**
 * `mongod --version` as mongod prints it: tools read the first line (`db version vX.Y.Z`).
 *
 * @example
 * mongodVersionText("7.0.14"); // "db version v7.0.14\nBuild Info: {...}"
 */
export function mongodVersionText(version: string): string {
  const buildInfo = {
    version,
    gitVersion: "svc-embedded-mongo",
    modules: [],
    allocator: "system",
    environment: { distmod: "svc-embedded-mongo", distarch: process.arch, target_arch: process.arch },
  };
  return `db version v${version}\nBuild Info: ${JSON.stringify(buildInfo, null, 4)}\n`;
}

/**
 * One line of mongod's structured log (4.4+), which tools scan: `{"t":{"$date":…},"s":"I",…}`.
 *
 * @example
 * mongodLogLine("I", "NETWORK", 23016, "Waiting for connections", {port: 27017, ssl: "off"});
 */
export function mongodLogLine(severity: "I" | "W" | "E", component: string, id: number, msg: string, attr?: Record<string, unknown>): string {
  return JSON.stringify({ t: { $date: new Date().toISOString() }, s: severity, c: component, id, ctx: "svc-mongod", msg, ...(attr ? { attr } : {}) });
}
