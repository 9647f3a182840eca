import type { Document, Long } from "bson";

/** The commands that are retryable writes when they carry `lsid` + `txnNumber` outside a transaction. */
const RETRYABLE_WRITE_COMMANDS: ReadonlyMap<string, string> = new Map([
  ["insert", "insert"],
  ["update", "update"],
  ["delete", "delete"],
  ["findAndModify", "findAndModify"],
  ["findandmodify", "findAndModify"],
]);

/**
 * The canonical name of a retryable write command, or undefined for any other command (whose
 * `txnNumber`, if any, does not make it retryable).
 *
 * @example
 * retryableWriteName("findandmodify"); // "findAndModify"
 * retryableWriteName("find");          // undefined
 */
export function retryableWriteName(commandName: string): string | undefined {
  return RETRYABLE_WRITE_COMMANDS.get(commandName);
}

/** What recovery knows of a committed entry (a journal entry or an oplog entry). */
export interface ReplayedEntry {
  readonly op: "i" | "u" | "d" | "c";
  readonly ns: string;
  readonly o: Document;
  readonly o2?: Document | undefined;
  readonly lsid?: Document | undefined;
  readonly txnNumber?: Long | undefined;
  readonly preImage?: Document | undefined;
}

/**
 * What a session remembers of the retryable write of its current `txnNumber`: the reply it sent
 * (the usual case, kept by reference: replies are never mutated after they are recorded), or,
 * after a restart, the entries recovery replayed for it, from which a reply is rebuilt.
 */
export type RetryableWriteRecord =
  | { readonly kind: "reply"; readonly txnNumber: Long; readonly commandName: string; readonly reply: Document }
  | { readonly kind: "replayed"; readonly txnNumber: Long; readonly entries: ReplayedEntry[] };

/**
 * The reply a retry of an already executed write gets: a copy of the original (the dispatcher
 * decorates replies with `$clusterTime`), or one rebuilt from replayed entries — counts for
 * insert/update/delete, the pre- or post-image for findAndModify (`fields` is not re-applied).
 *
 * @example
 * const reply = retryReply(session.retryableWrite, {insert: "c", documents: [...]}); // {n: 2, ok: 1}
 */
export function retryReply(record: RetryableWriteRecord, command: Document): Document {
  if (record.kind === "reply") return { ...record.reply };
  const name = retryableWriteName(Object.keys(command)[0] ?? "");
  const { entries } = record;
  const count = (op: ReplayedEntry["op"]): number => entries.filter((entry) => entry.op === op).length;
  switch (name) {
    case "insert":
      return { n: count("i"), ok: 1 };
    case "delete":
      return { n: count("d"), ok: 1 };
    case "update": {
      const upserted = entries.filter((entry) => entry.op === "i").map((entry, index) => ({ index, _id: entry.o["_id"] }));
      const reply: Document = { n: count("u") + upserted.length, nModified: count("u") };
      if (upserted.length > 0) reply["upserted"] = upserted;
      reply["ok"] = 1;
      return reply;
    }
    default: {
      const entry = entries[0];
      const returnNew = command["new"] === true;
      if (!entry) return { lastErrorObject: { n: 0 }, value: null, ok: 1 };
      if (entry.op === "d") return { lastErrorObject: { n: 1 }, value: entry.preImage ?? null, ok: 1 };
      if (entry.op === "i") {
        return { lastErrorObject: { n: 1, updatedExisting: false, upserted: entry.o["_id"] }, value: returnNew ? entry.o : null, ok: 1 };
      }
      return { lastErrorObject: { n: 1, updatedExisting: true }, value: returnNew ? entry.o : (entry.preImage ?? null), ok: 1 };
    }
  }
}
