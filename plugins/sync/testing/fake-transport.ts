import { SyncRequestError, type BatchOutcome, type SnapshotEntity, type SyncAck, type SyncDelta, type SyncHttpChannel, type SyncNack, type SyncTransport, type TransportEvent, type WireMutation } from "../client/index.js";

/**
 * How the fake answers one mutation: an ack (its `seq` defaults to the stream's next), a nack, or
 * `"drop"` (no answer: the send fails as a network error, as a lost connection would).
 */
export type FakeResponse = { readonly ack: Partial<SyncAck> } | { readonly nack: Partial<SyncNack> & Pick<SyncNack, "code"> } | "drop";

/** Options of `createFakeTransport`. */
export interface FakeTransportOptions {
  /**
   * Streams per collection confirmed on `sync:subscribe` and listed by `GET /sync/streams` (with
   * those of every collection subscribed to or stored); default `<collection>|owner:fake`.
   */
  readonly streams?: Readonly<Record<string, readonly string[]>>;
  /** Answer mutations with no queued response with an ack; default true (false: they get no answer, `"drop"`). */
  readonly autoAck?: boolean;
}

/**
 * A stand-in for the sync server, for tests of code that uses the sync client: a `transport` and
 * an `httpChannel` to hand to `createSyncDb`, and controls to drive them.
 *
 * @example
 * const fake = createFakeTransport();
 * const db = createSyncDb({ name: "t", collections: ["todos"], transport: fake.transport, httpChannel: fake.httpChannel, authProvider });
 * await db.start();
 * fake.queueNack({ code: "conflict", serverDoc: { title: "Theirs" }, serverSeq: 4 });
 * db.mutate({ collection: "todos", operation: "update", id: "t1", data: { title: "Mine" } });
 */
export interface FakeTransport {
  readonly transport: SyncTransport;
  readonly httpChannel: SyncHttpChannel;
  /** Every mutation sent, in order, over either channel. */
  readonly sent: readonly WireMutation[];
  /** The token of every `connect()`. */
  readonly tokens: readonly string[];
  readonly connected: boolean;
  /**
   * `false` drops the connection and fails HTTP requests as a network error; `true` reconnects a
   * client that still wants to be connected, as socket.io's automatic reconnection does.
   */
  setReachable(reachable: boolean): void;
  /** The server closes the connection (socket.io does not reconnect by itself after that: the client must). */
  dropConnection(): void;
  /** Refuses connections and HTTP requests made with tokens `accept` returns false for (401). */
  acceptTokens(accept: (token: string) => boolean): void;
  /** Sends `sync:auth-expired` and drops the connection, as the server does. */
  expireAuth(reason?: "expired" | "disabled"): void;
  /** Stores the entity in the fake server (snapshots serve it) and pushes it as a `sync:delta`. `seq` defaults to the stream's next. */
  deliverDelta(delta: Omit<SyncDelta, "seq" | "frontierSeq"> & { readonly seq?: number }): SyncDelta;
  /** Stores an entity in the fake server without pushing a delta (a write the client missed). */
  putEntity(stream: string, collection: string, entity: Omit<SnapshotEntity, "seq"> & { readonly seq?: number }): SnapshotEntity;
  /** Sends any transport event (e.g. `{type: "reconcile", reason: "history-lost"}`). */
  emit(event: TransportEvent): void;
  queueAck(ack?: Partial<SyncAck>): void;
  queueNack(nack: Partial<SyncNack> & Pick<SyncNack, "code">): void;
  /** Answers the next mutations with these responses, in order. */
  queueResponses(...responses: FakeResponse[]): void;
  /** The fake server's entities of a stream, by seq. */
  entities(stream: string): readonly SnapshotEntity[];
}

/**
 * Creates the fake sync server of `FakeTransport`. It answers like the real one: a batch stops at
 * the first nack (the rest `notAttempted`), acked mutations are stored with the stream's next seq,
 * snapshots page by cursor.
 *
 * @example
 * const fake = createFakeTransport({ streams: { todos: ["todos|owner:u1"] } });
 */
export function createFakeTransport(options: FakeTransportOptions = {}): FakeTransport {
  const listeners = new Set<(event: TransportEvent) => void>();
  const sent: WireMutation[] = [];
  const tokens: string[] = [];
  const responses: FakeResponse[] = [];
  const server = new Map<string, Map<string, SnapshotEntity & { collection: string }>>();
  const counters = new Map<string, number>();
  const subscribedCollections = new Set<string>();
  let connected = false;
  let wanted = false;
  let reachable = true;
  let accept: (token: string) => boolean = () => true;
  const streamsOf = (collection: string) => options.streams?.[collection] ?? [`${collection}|owner:fake`];
  // Events arrive asynchronously, as off a socket: those emitted together are delivered one after
  // another in one later microtask, as socket.io delivers the messages of one read.
  let inbox: TransportEvent[] = [];
  const deliver = () => {
    const events = inbox;
    inbox = [];
    for (const event of events) {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch (error) {
          // As from a socket's own event handler: reported, and the other events still arrive.
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    }
  };
  const emit = (event: TransportEvent) => {
    if (inbox.push(event) === 1) queueMicrotask(deliver);
  };
  const nextSeq = (stream: string, seq?: number) => {
    const next = seq ?? (counters.get(stream) ?? 0) + 1;
    counters.set(stream, Math.max(next, counters.get(stream) ?? 0));
    return next;
  };
  const store = (stream: string, collection: string, entity: SnapshotEntity) => {
    let entities = server.get(stream);
    if (!entities) server.set(stream, (entities = new Map()));
    entities.set(entity.id, { ...entity, collection });
  };
  const disconnect = (reason: string) => {
    if (!connected) return;
    connected = false;
    emit({ type: "disconnected", reason });
  };
  let lastToken = "";
  const open = () => {
    if (connected || !reachable) return;
    if (!accept(lastToken)) {
      wanted = false;
      return emit({ type: "connect-error", unauthorized: true, message: "fake server refused the token" });
    }
    connected = true;
    emit({ type: "connected" });
  };
  const check = (token: string) => {
    if (!reachable) throw new SyncRequestError("network", "fake server unreachable");
    if (!accept(token)) throw new SyncRequestError("auth", "fake server refused the token", 401);
  };
  const answer = (mutations: readonly WireMutation[]): BatchOutcome[] => {
    const outcomes: BatchOutcome[] = [];
    let stopped = false;
    for (const mutation of mutations) {
      if (stopped) {
        outcomes.push({ notAttempted: { mutationId: mutation.mutationId } });
        continue;
      }
      sent.push(mutation);
      const response = responses.shift() ?? (options.autoAck === false ? "drop" : { ack: {} });
      if (response === "drop") throw new SyncRequestError("network", "fake server dropped the mutation");
      if ("nack" in response) {
        outcomes.push({ nack: { mutationId: mutation.mutationId, ...response.nack } });
        stopped = true;
        continue;
      }
      const stream = streamsOf(mutation.collection)[0]!;
      const seq = nextSeq(stream, response.ack.seq);
      const previous = server.get(stream)?.get(mutation.id);
      const data = mutation.operation === "create" ? { ...mutation.data, id: mutation.id } : { ...previous?.data, ...mutation.data, id: mutation.id };
      store(stream, mutation.collection, { id: mutation.id, data, seq, deleted: mutation.operation === "delete" });
      outcomes.push({ ack: { mutationId: mutation.mutationId, id: mutation.id, seq, ...response.ack } });
    }
    return outcomes;
  };
  const transport: SyncTransport = {
    connect(auth) {
      tokens.push(auth.token);
      wanted = true;
      lastToken = auth.token;
      open();
    },
    disconnect() {
      wanted = false;
      disconnect("io client disconnect");
    },
    isConnected: () => connected,
    subscribe(collections) {
      for (const collection of collections) {
        subscribedCollections.add(collection);
        emit({ type: "subscribed", collection, streams: streamsOf(collection) });
      }
    },
    async mutateBatch(mutations) {
      if (!connected) throw new SyncRequestError("network", "fake socket not connected");
      return answer(mutations);
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
  const httpChannel: SyncHttpChannel = {
    async snapshot({ stream, cursor, limit }, token) {
      check(token);
      const frontierSeq = counters.get(stream) ?? 0;
      const entities = [...(server.get(stream)?.values() ?? [])].filter((entity) => entity.seq > cursor).sort((a, b) => a.seq - b.seq);
      const page = entities.slice(0, limit).map(({ collection: _collection, ...entity }) => entity);
      const hasMore = entities.length > limit;
      return { stream, entities: page, cursor: hasMore ? page[page.length - 1]!.seq : frontierSeq, hasMore, frontierSeq };
    },
    async streams(token) {
      check(token);
      const collections = new Set([...Object.keys(options.streams ?? {}), ...subscribedCollections, ...[...server.values()].flatMap((entities) => [...entities.values()].map((entity) => entity.collection))]);
      return [...collections].flatMap((collection) => streamsOf(collection).map((stream) => ({ collection, stream })));
    },
    async entities({ collection, ids }, token) {
      check(token);
      return [...server.values()].flatMap((entities) => [...entities.values()]).filter((entity) => entity.collection === collection && ids.includes(entity.id));
    },
    async mutateBatch(mutations, token) {
      check(token);
      return answer(mutations);
    },
    async key(token) {
      check(token);
      return btoa("fake key material, 32 bytes long");
    },
  };
  return {
    transport,
    httpChannel,
    sent,
    tokens,
    get connected() {
      return connected;
    },
    setReachable(value) {
      reachable = value;
      if (!value) disconnect("transport close");
      else if (wanted) open();
    },
    dropConnection() {
      wanted = false;
      disconnect("io server disconnect");
    },
    acceptTokens(predicate) {
      accept = predicate;
    },
    expireAuth(reason = "expired") {
      emit({ type: "auth-expired", reason });
      wanted = false;
      disconnect("io server disconnect");
    },
    deliverDelta(input) {
      const seq = nextSeq(input.stream, input.seq);
      const delta: SyncDelta = { ...input, seq, frontierSeq: seq };
      store(input.stream, input.collection, { id: input.id, data: { ...input.data, id: input.id }, seq, deleted: input.deleted ?? input.method === "delete" });
      if (connected) emit({ type: "delta", delta });
      return delta;
    },
    putEntity(stream, collection, input) {
      const entity = { ...input, seq: nextSeq(stream, input.seq) };
      store(stream, collection, entity);
      return entity;
    },
    emit,
    queueAck: (ack = {}) => void responses.push({ ack }),
    queueNack: (nack) => void responses.push({ nack }),
    queueResponses: (...more) => void responses.push(...more),
    entities: (stream) => [...(server.get(stream)?.values() ?? [])].sort((a, b) => a.seq - b.seq).map(({ collection: _collection, ...entity }) => entity),
  };
}
