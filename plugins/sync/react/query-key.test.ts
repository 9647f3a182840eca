import test from "ava";
import { queryKey } from "./query-key.js";

// The key useQuery and useEntityIds keep a watch by: equal for queries that select the same
// entities, different for queries that may not.

test("filters that select other entities have other keys, whatever JSON would make of their values", (t) => {
  const distinct = [
    { filter: {} },
    { filter: { parentId: undefined } },
    { filter: { parentId: null } },
    { filter: { n: Number.NaN } },
    { filter: { n: Number.POSITIVE_INFINITY } },
    { filter: { n: 1n } },
    { filter: { at: new Date(0) } },
    { filter: { at: "1970-01-01T00:00:00.000Z" } },
    { filter: { at: "\u0000undefined" } },
    { filter: {}, includeDeleted: true },
    { filter: {}, sort: "title" },
  ];
  const keys = distinct.map((query) => queryKey(query));
  t.is(new Set(keys).size, distinct.length, keys.join("\n"));
});

test("queries that select the same entities share a key: a new options object each render does not start a new watch", (t) => {
  const byTitle = (a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>) => String(a.title).localeCompare(String(b.title));
  t.is(queryKey({ filter: { done: false }, sort: "-title" }), queryKey({ filter: { done: false }, sort: "-title" }));
  t.is(queryKey({ filter: { at: new Date(5) }, sort: byTitle }), queryKey({ filter: { at: new Date(5) }, sort: byTitle }));
  t.not(queryKey({ sort: byTitle }), queryKey({ sort: (a, b) => byTitle(a, b) }), "functions by identity");
  t.is(queryKey(undefined), "");
});
