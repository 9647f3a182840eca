import test from "ava";
import { Timestamp } from "bson";
import { EngineError } from "../engine-error.js";
import { decodeResumeToken, encodeResumeToken, nextTimestamp, previousTimestamp } from "./resume-token.js";
import type { ResumeTokenData } from "./resume-token.js";

const ts = (t: number, i: number): Timestamp => new Timestamp({ t, i });

test("tokens round-trip as {_data: hex} and sort in stream order", (t) => {
  const tokens: ResumeTokenData[] = [
    { kind: "event", ts: ts(1700000000, 1), txnOpIndex: 0 },
    { kind: "highWaterMark", ts: ts(1700000000, 2), txnOpIndex: 0 },
    { kind: "event", ts: ts(1700000000, 2), txnOpIndex: 0 },
    { kind: "event", ts: ts(1700000000, 2), txnOpIndex: 1 },
    { kind: "invalidate", ts: ts(1700000000, 2), txnOpIndex: 1 },
    { kind: "event", ts: ts(1700000001, 0), txnOpIndex: 0 },
    { kind: "event", ts: ts(0xffffffff, 0xffffffff), txnOpIndex: 0 },
  ];
  const encoded = tokens.map(encodeResumeToken);
  for (const [i, token] of encoded.entries()) {
    t.deepEqual(Object.keys(token), ["_data"]);
    t.regex(token._data, /^[0-9A-F]+$/);
    const decoded = decodeResumeToken(token, "resumeAfter");
    t.is(decoded.kind, tokens[i]!.kind);
    t.true(decoded.ts.equals(tokens[i]!.ts));
    t.is(decoded.txnOpIndex, tokens[i]!.txnOpIndex);
  }
  const data = encoded.map((token) => token._data);
  t.deepEqual([...data].sort(), data);
});

test("malformed tokens: not a document → 14, no string _data → 40647, not ours → 260", (t) => {
  const code = (value: unknown): number => t.throws(() => decodeResumeToken(value, "startAfter"), { instanceOf: EngineError }).code;
  t.is(code("8263"), 14);
  t.is(code([1]), 14);
  t.is(code({}), 40647);
  t.is(code({ _data: 12 }), 40647);
  for (const data of ["", "zz", "8263A1B2C3", "01".repeat(15), "02" + "00".repeat(13), "01" + "00".repeat(12) + "07"]) {
    t.is(code({ _data: data }), 260, data);
  }
  t.is(decodeResumeToken({ _data: encodeResumeToken({ kind: "event", ts: ts(5, 5), txnOpIndex: 0 })._data.toLowerCase() }, "x").kind, "event");
});

test("previous and next timestamps cross second boundaries", (t) => {
  t.true(previousTimestamp(ts(10, 3)).equals(ts(10, 2)));
  t.true(previousTimestamp(ts(10, 0)).equals(ts(9, 0xffffffff)));
  t.true(nextTimestamp(ts(10, 3)).equals(ts(10, 4)));
  t.true(nextTimestamp(ts(10, 0xffffffff)).equals(ts(11, 0)));
  t.true(nextTimestamp(previousTimestamp(ts(10, 0))).equals(ts(10, 0)));
});
