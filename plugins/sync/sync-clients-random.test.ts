// The ordering guarantee end to end, at random: two users with two devices each keep a local copy
// of their todos and tasks over the socket (subscribe, apply deltas, page the snapshot from their
// cursor on a seq jump or a reconnect), while every device writes through the socket or HTTP —
// sometimes sending the same mutation twice — and server code moves tasks between the users.
// Devices disconnect at random and reconnect by cursor. At the end every device's copy equals the
// server's, and no mutation was applied twice (each stream's counter equals the writes it saw).
// Seeded: SYNC_CLIENTS_SEED=<n> replays one run's decisions (timing still varies).
import test from "ava";
import request from "supertest";
import { stopTestDatabase } from "../../hosts/testing.js";
import { prng } from "../../test/support/prng.js";
import { recordingSocket, type RecordingSocket } from "../../test/support/recording-socket.js";
import { SyncTask, SyncTodo, syncTestApp, uid, type SyncCaller, type SyncTestApp } from "../../test/support/sync-test-app.js";
import type { MutationOutcome, SnapshotPage, SyncDelta } from "./index.js";
import { syncBookkeeping } from "./sync-bookkeeping.js";

let stopApp: (() => Promise<void> | void) | undefined;
const shared: Promise<SyncTestApp> = syncTestApp({ teardown: (fn) => void (stopApp = fn) }, { realtime: {} });
const closers: Array<() => void> = [];
test.after.always(async () => {
  closers.forEach((close) => close());
  await stopApp?.();
  await stopTestDatabase();
});

const COLLECTIONS = ["synctodos", "synctasks"] as const;
const STEPS_PER_DEVICE = 40;
const MOVES = 25;

interface Copy {
  seq: number;
  deleted: boolean;
  data?: Record<string, unknown>;
}

/** One device of a user: a local copy per stream, its cursors, and a socket that comes and goes. */
class Device {
  readonly copies = new Map<string, Map<string, Copy>>();
  readonly cursors = new Map<string, number>();
  /** Every (stream, seq) applied, to prove none arrives twice as a new state. */
  client?: RecordingSocket;
  private paging = new Map<string, Promise<void>>();

  constructor(
    readonly name: string,
    readonly caller: SyncCaller,
    private readonly app: SyncTestApp,
  ) {}

  async connect(): Promise<void> {
    const client = await recordingSocket(this.app.socketUrl!, { token: this.caller.token, teardown: (fn) => closers.push(fn) });
    this.client = client;
    client.socket.on("sync:delta", (delta: SyncDelta) => this.onDelta(delta));
    client.socket.on("sync:subscribed", (answer: { collection: string; streams: string[] }) => {
      for (const stream of answer.streams) void this.catchUp(answer.collection, stream);
    });
    client.emit("sync:subscribe", { collections: [...COLLECTIONS] });
  }

  disconnect(): void {
    this.client?.socket.disconnect();
    this.client = undefined;
  }

  private onDelta(delta: SyncDelta): void {
    this.apply(delta.stream, delta.id, { seq: delta.seq, deleted: delta.deleted === true, data: delta.data });
    const cursor = this.cursors.get(delta.stream) ?? 0;
    if (delta.seq === cursor + 1) this.cursors.set(delta.stream, delta.seq);
    else if (delta.seq > cursor + 1) void this.catchUp(delta.collection, delta.stream); // missed some: page from the cursor
  }

  /** Pages the stream from its cursor until the frontier (one pager per stream at a time). */
  catchUp(collection: string, stream: string): Promise<void> {
    const running = this.paging.get(stream);
    if (running) return running.then(() => this.catchUp(collection, stream));
    const paging = (async () => {
      for (;;) {
        const cursor = this.cursors.get(stream) ?? 0;
        const response = await request(this.app.http).get("/sync/snapshot").query({ collection, stream, cursor, limit: 7 }).set("Authorization", `Bearer ${this.caller.token}`);
        if (response.status !== 200) throw new Error(`${this.name}: snapshot answered ${response.status}`);
        const page = response.body as SnapshotPage;
        for (const entity of page.entities) this.apply(stream, entity.id, { seq: entity.seq, deleted: entity.deleted, data: entity.deleted && Object.keys(entity.data).length === 1 ? undefined : entity.data });
        this.cursors.set(stream, Math.max(this.cursors.get(stream) ?? 0, page.cursor));
        if (!page.hasMore) return;
      }
    })().finally(() => this.paging.delete(stream));
    this.paging.set(stream, paging);
    return paging;
  }

  private apply(stream: string, id: string, copy: Copy): void {
    let copies = this.copies.get(stream);
    if (!copies) this.copies.set(stream, (copies = new Map()));
    const current = copies.get(id);
    if (current && current.seq >= copy.seq) return; // an older or repeated state
    copies.set(id, copy.data === undefined ? { seq: copy.seq, deleted: copy.deleted } : copy);
  }
}

async function serverCopies(stream: string): Promise<Map<string, Copy>> {
  const model = stream.startsWith("synctodos|") ? SyncTodo : SyncTask;
  const expected = new Map<string, Copy>();
  const docs = await model.find({ _syncStream: stream, deleted: { $in: [true, false, null] } }).lean();
  for (const doc of docs) {
    const { _id, __v, _syncSeq, _syncStream, ...fields } = doc as Record<string, unknown>;
    void __v;
    void _syncStream;
    expected.set(String(_id), { seq: Number(_syncSeq), deleted: fields.deleted === true, data: { id: String(_id), ...fields } });
  }
  const tombstones = await syncBookkeeping(model.db).tombstones.find({ stream }).lean();
  for (const tombstone of tombstones) {
    const current = expected.get(tombstone.entityId);
    if (!current || current.seq < tombstone.seq) expected.set(tombstone.entityId, { seq: tombstone.seq, deleted: true });
  }
  return expected;
}

const sorted = (value: unknown): unknown =>
  value && typeof value === "object" && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([key, inner]) => [key, sorted(inner)])) : value;

test("devices that write, disconnect and reconnect by cursor end with the server's state; nothing is applied twice", async (t) => {
  const seed = Number(process.env.SYNC_CLIENTS_SEED ?? 20261123);
  t.log(`SYNC_CLIENTS_SEED=${seed}`);
  const random = prng(seed);
  const app = await shared;
  const [ann, ben] = [await app.signup(), await app.signup()];
  const devices = [new Device("ann-1", ann, app), new Device("ann-2", ann, app), new Device("ben-1", ben, app), new Device("ben-2", ben, app)];
  for (const device of devices) await device.connect();

  // What each user's devices know of their entities' seqs (shared per user: two devices of one
  // user write to the same stream and conflict with each other now and then — that is fine).
  const known = new Map<string, { ids: string[]; seqs: Map<string, number> }>([
    [ann.id, { ids: [], seqs: new Map() }],
    [ben.id, { ids: [], seqs: new Map() }],
  ]);
  const acked = new Set<string>();
  const ackOf = new Map<string, string>();

  const send = async (device: Device, mutation: Record<string, unknown>): Promise<MutationOutcome> => {
    const viaSocket = device.client && random() < 0.7;
    const outcome = viaSocket
      ? await device.client!.request<MutationOutcome>("sync:mutate", mutation).catch(() => undefined)
      : ((await request(app.http).post("/sync/mutate").set("Authorization", `Bearer ${device.caller.token}`).send(mutation)).body as MutationOutcome);
    if (!outcome) return send(device, mutation); // the socket went away mid-request: resend (same mutationId)
    if ("ack" in outcome) {
      const previous = ackOf.get(outcome.ack.mutationId);
      if (previous !== undefined && previous !== JSON.stringify(outcome.ack)) throw new Error(`mutation ${outcome.ack.mutationId} acked twice differently`);
      ackOf.set(outcome.ack.mutationId, JSON.stringify(outcome.ack));
      acked.add(outcome.ack.mutationId);
    }
    return outcome;
  };

  const deviceRun = async (device: Device) => {
    const mine = known.get(device.caller.id)!;
    for (let step = 0; step < STEPS_PER_DEVICE; step++) {
      const roll = random();
      if (roll < 0.08 && device.client) {
        device.disconnect();
        continue;
      }
      if (!device.client && roll < 0.4) await device.connect();
      const id = mine.ids.length > 0 && random() < 0.6 ? mine.ids[Math.floor(random() * mine.ids.length)]! : undefined;
      const mutation = id
        ? random() < 0.8
          ? { mutationId: uid("m"), collection: "synctodos", operation: "update", id, data: { title: `t${step}`, done: random() < 0.5 }, baseVersion: mine.seqs.get(id) ?? 0 }
          : { mutationId: uid("m"), collection: "synctodos", operation: "delete", id, baseVersion: mine.seqs.get(id) ?? 0 }
        : { mutationId: uid("m"), collection: "synctodos", operation: "create", id: uid("todo"), data: { title: `new ${step}` } };
      const outcome = await send(device, mutation);
      if (random() < 0.2) await send(device, mutation); // a resend: must answer the same, apply nothing
      if ("ack" in outcome) {
        if (mutation.operation === "create") mine.ids.push(outcome.ack.id);
        if (mutation.operation === "delete" && mine.ids.includes(outcome.ack.id)) mine.ids.splice(mine.ids.indexOf(outcome.ack.id), 1);
        mine.seqs.set(outcome.ack.id, outcome.ack.seq);
      } else if (outcome.nack.code === "conflict") {
        mine.seqs.set(String(mutation.id), outcome.nack.serverSeq ?? 0);
      }
    }
  };

  // Server code hands tasks back and forth between the two users (a stream move each time).
  const mover = async () => {
    const ids: string[] = [];
    for (let step = 0; step < MOVES; step++) {
      if (ids.length === 0 || random() < 0.3) {
        const id = uid("task");
        await new SyncTask({ _id: id, title: `task ${step}`, assigneeId: random() < 0.5 ? ann.id : ben.id }).save();
        ids.push(id);
        continue;
      }
      const task = await SyncTask.findById(ids[Math.floor(random() * ids.length)]).orFail();
      task.set("assigneeId", task.get("assigneeId") === ann.id ? ben.id : ann.id);
      if (random() < 0.2) task.set("deleted", true);
      await task.save();
      if (task.get("deleted")) ids.splice(ids.indexOf(String(task._id)), 1);
    }
  };

  await Promise.all([...devices.map(deviceRun), mover()]);

  // Everyone back online and caught up to the frontier.
  for (const device of devices) if (!device.client) await device.connect();
  for (const device of devices) {
    await device.client!.next("sync:subscribed", (answer: { collection: string }) => answer.collection === "synctasks");
    for (const collection of COLLECTIONS) await device.catchUp(collection, `${collection}|owner:${device.caller.id}`);
  }

  const counters = syncBookkeeping(SyncTodo.db).counters;
  for (const device of devices) {
    for (const collection of COLLECTIONS) {
      const stream = `${collection}|owner:${device.caller.id}`;
      const expected = await serverCopies(stream);
      const actual = device.copies.get(stream) ?? new Map<string, Copy>();
      t.deepEqual(sorted(Object.fromEntries(actual)), sorted(Object.fromEntries(expected)), `${device.name} ${stream}`);
      t.is(device.cursors.get(stream), (await counters.findOne({ stream }).lean())?.seq ?? 0, `${device.name} ${stream} cursor at the frontier`);
    }
  }
  // Each acked mutation was recorded once, and the todo streams counted exactly one seq per applied mutation.
  const records = await syncBookkeeping(SyncTodo.db).mutations.countDocuments({ mutationId: { $in: [...acked] } });
  t.is(records, acked.size);
  for (const user of [ann, ben]) {
    const applied = await syncBookkeeping(SyncTodo.db).mutations.countDocuments({ userId: user.id, collectionName: "synctodos" });
    t.is((await counters.findOne({ stream: `synctodos|owner:${user.id}` }).lean())?.seq ?? 0, applied);
  }
});
