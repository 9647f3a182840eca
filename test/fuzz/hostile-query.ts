// Query strings: plausible values for the operation's documented parameters (so list filters,
// pagination and sort are reached) mixed with hostile ones — operators outside the allowlist,
// bad numbers, repeated parameters, prototype keys, NUL, invalid UTF-8 and malformed
// percent-encoding, written to the request line exactly as generated.
import fc from "fast-check";
import type { FuzzOperation, OperationParameter, Schema } from "./openapi-operations.js";
import { plausibleValue } from "./schema-values.js";

/** One `name=value` pair as it goes on the wire, with why a 2xx would be wrong, if it would. */
export interface QueryPair {
  readonly raw: string;
  readonly label?: string;
  readonly mustRefuse?: string;
}

const enc = encodeURIComponent;
/** Query strings stay under Node's 16 KB header limit: oversized request lines are Node's to refuse. */
const MAX_QUERY_LENGTH = 8_000;

/** Pairs aimed at no parameter in particular: prototype keys, operators, broken encodings. */
const GLOBAL_HOSTILE: readonly QueryPair[] = [
  { raw: "__proto__[admin]=true", label: "a __proto__ parameter" },
  { raw: "constructor[prototype][admin]=true", label: "a constructor.prototype parameter" },
  { raw: "__proto__=x", label: "a __proto__ parameter" },
  { raw: "$where=1", label: "a $where parameter" },
  { raw: "%24where=this.admin", label: "an encoded $where parameter" },
  { raw: "$or[0][admin]=true", label: "a $or parameter" },
  { raw: "a%00b=1", label: "a NUL in a parameter name" },
  { raw: "%00=%00", label: "NUL as name and value" },
  { raw: "%E0%A4%A=1", label: "malformed percent-encoding in a name" },
  { raw: "fuzz=%", label: "a lone %" },
  { raw: "fuzz=%zz", label: "a non-hex escape" },
  { raw: "fuzz=%C0%80", label: "an overlong NUL (invalid UTF-8)" },
  { raw: "fuzz=%ED%A0%80", label: "an encoded surrogate (invalid UTF-8)" },
  { raw: "fuzz=%FF%FE", label: "invalid UTF-8 bytes" },
  { raw: "%=1", label: "a lone % as a name" },
  { raw: "&&&=&", label: "empty pairs" },
  { raw: "fuzz[a][b][c][d][e][f][g]=1", label: "a deeply bracketed name" },
  { raw: Array.from({ length: 300 }, (_, index) => `p${index}=1`).join("&"), label: "300 parameters" },
];

/** Values for integer parameters (limit, page) and whether they break the documented bounds. */
function integerPairs(parameter: OperationParameter): QueryPair[] {
  const { name, schema } = parameter;
  const minimum = typeof schema.minimum === "number" ? schema.minimum : undefined;
  const maximum = typeof schema.maximum === "number" ? schema.maximum : undefined;
  const refuse = (value: string, why: string): QueryPair => ({ raw: `${name}=${value}`, label: `${name}=${value}`, mustRefuse: `${name}=${value} ${why}` });
  const pairs: QueryPair[] = [
    refuse("abc", "is not an integer"),
    refuse("1.5", "is not an integer"),
    { raw: `${name}=1e3`, label: `${name}=1e3` },
    { raw: `${name}=0x10`, label: `${name}=0x10` },
    { raw: `${name}=`, label: `an empty ${name}` },
    { raw: `${name}=%20${"1"}`, label: `${name} with a leading space` },
    { raw: `${name}=1&${name}=2`, label: `${name} given twice` },
    { raw: `${name}[$gt]=1`, label: `an operator on ${name}` },
    { raw: `${name}[]=1`, label: `${name} as an array` },
    { raw: `${name}=Infinity`, label: `${name}=Infinity` },
    { raw: `${name}=NaN`, label: `${name}=NaN` },
    { raw: `${name}=1%00`, label: `${name} with a NUL` },
  ];
  const huge = "99999999999999999999";
  pairs.push(maximum === undefined ? { raw: `${name}=${huge}`, label: `${name}=${huge}` } : refuse(huge, `is over the documented maximum ${maximum}`));
  for (const value of [-1, 0]) {
    pairs.push(minimum !== undefined && value < minimum ? refuse(String(value), `is under the documented minimum ${minimum}`) : { raw: `${name}=${value}`, label: `${name}=${value}` });
  }
  return pairs;
}

/** Values for `sort`: operators, prototype names, too many keys, repeated keys. */
function sortPairs(name: string, fields: readonly string[]): QueryPair[] {
  const field = fields[0] ?? "id";
  return [
    "$where",
    "__proto__",
    "constructor",
    "-",
    ",,,",
    "a,b,c,d,e,f,g",
    `-${field},-${field}`,
    `${field}.$`,
    "$natural",
    "%00",
    "-%E0%A4%A",
    "x".repeat(2_000),
    `{"$natural":1}`,
  ].map((value) => ({ raw: `${name}=${value.startsWith("{") ? enc(value) : value}`, label: `${name}=${value.length > 40 ? `${value.length} characters` : value}` }));
}

/** Hostile pairs for a deepObject filter parameter: operators outside its declared ones and bad values. */
function filterPairs(parameter: OperationParameter): QueryPair[] {
  const { name, schema } = parameter;
  const declared = new Set(Object.keys((schema.properties ?? {}) as object));
  const closed = schema.additionalProperties === false;
  const operator = (op: string, value: string, label: string): QueryPair => ({
    raw: `${name}[${op}]=${value}`,
    label: `${name}[${op}]: ${label}`,
    mustRefuse: closed && !declared.has(op) ? `${op} is not an operator ${name} documents` : undefined,
  });
  const commas = Array.from({ length: 500 }, (_, index) => `v${index}`).join(",");
  return [
    operator("$where", "1", "$where"),
    operator("$expr", enc('{"$eq":[1,1]}'), "$expr"),
    operator("$function", "x", "$function"),
    operator("$regex", "x".repeat(200), "a 200-character pattern"),
    operator("$regex", enc("(a+)+$"), "a catastrophic pattern"),
    operator("$regex", "%00", "a NUL pattern"),
    operator("$regex", enc("["), "an unclosed class"),
    operator("$regex", enc("/x/gimsuy"), "every flag"),
    operator("$regex", enc("\\"), "a lone backslash"),
    operator("$regex", "%FF", "invalid UTF-8"),
    operator("$in", commas, "500 values"),
    operator("$in", "a%00,b", "a NUL among the values"),
    operator("$in", ",,,", "empty values"),
    operator("$nin", "%E0%A4%A", "malformed percent-encoding"),
    operator("$exists", "maybe", "not a boolean"),
    operator("$eq", "%00", "NUL"),
    operator("$eq", "fuzz%00fuzz", "a NUL inside"),
    operator("$eq", "%ED%A0%80", "an encoded surrogate"),
    operator("$eq", "x".repeat(3_000), "3000 characters"),
    operator("$ne", "%FF%FE", "invalid UTF-8"),
    operator("$gt", "abc", "text"),
    operator("$lt", enc('{"$gt":""}'), "an operator as a value"),
    operator("$size", "1", "$size"),
    operator("__proto__", "1", "__proto__"),
    operator("", "1", "an empty operator"),
    { raw: `${name}[$eq][$ne]=1`, label: `${name}: nested operators` },
    { raw: `${name}[]=x`, label: `${name} as an array` },
    { raw: `${name}=x&${name}=y`, label: `${name} given twice` },
    { raw: `${name}.$where=1`, label: `${name}.$where` },
    { raw: `${name}.__proto__.admin=1`, label: `${name}.__proto__` },
    { raw: `${name}=%00`, label: `${name}=NUL` },
    { raw: `${name}=a%00b`, label: `${name} with a NUL inside` },
    { raw: `${name}=%C0%80`, label: `${name}: an overlong NUL` },
  ];
}

/** Hostile pairs for any other query parameter. */
function otherPairs(parameter: OperationParameter): QueryPair[] {
  const { name } = parameter;
  return ["%00", "%FF", "%E0%A4%A", "x".repeat(3_000), "__proto__", "$where", enc('{"$gt":""}')].flatMap((value) => [
    { raw: `${name}=${value}`, label: `${name}=${value.length > 40 ? `${value.length} characters` : value}` },
    { raw: `${name}[$gt]=${value}`, label: `${name}[$gt]` },
  ]);
}

/** A plausible `name=value` for a parameter, so valid queries reach the database too. */
function plausiblePair(parameter: OperationParameter, fields: readonly string[]): fc.Arbitrary<QueryPair> {
  const { name, schema } = parameter;
  if (parameter.style === "deepObject" && schema.properties) {
    const operators = Object.entries(schema.properties as Record<string, Schema>);
    return fc.constantFrom(...operators).chain(([op, operand]) =>
      plausibleValue(operand).map((value) => ({ raw: op === "$eq" ? `${name}=${enc(String(value))}` : `${name}[${op}]=${enc(String(value))}` })),
    );
  }
  if (name === "sort" && fields.length > 0) {
    return fc.subarray([...fields], { minLength: 1, maxLength: 3 }).chain((chosen) =>
      fc.array(fc.boolean(), { minLength: chosen.length, maxLength: chosen.length }).map((descending) => ({
        raw: `sort=${chosen.map((field, index) => (descending[index] ? `-${field}` : field)).join(",")}`,
      })),
    );
  }
  return plausibleValue(schema).map((value) => ({ raw: `${name}=${enc(String(value))}` }));
}

/**
 * Every hostile pair for an operation: those aimed at each documented query parameter (by its
 * type: integers, sort, deepObject filters, others) and those aimed at none.
 *
 * @example
 * hostileQueryPairs(listTodos).length; // about 170
 */
export function hostileQueryPairs(operation: FuzzOperation): QueryPair[] {
  const hostile: QueryPair[] = [...GLOBAL_HOSTILE];
  for (const parameter of operation.parameters.filter((parameter) => parameter.in === "query")) {
    const type = Array.isArray(parameter.schema.type) ? parameter.schema.type[0] : parameter.schema.type;
    if (type === "integer" || type === "number") hostile.push(...integerPairs(parameter));
    else if (parameter.name === "sort") hostile.push(...sortPairs(parameter.name, operation.recordFields));
    else if (parameter.style === "deepObject") hostile.push(...filterPairs(parameter));
    else hostile.push(...otherPairs(parameter));
  }
  return hostile;
}

/**
 * Plans for an operation's query string: each documented parameter plausibly set or left out,
 * plus zero to three hostile pairs aimed at a documented parameter or at none.
 *
 * @example
 * fc.sample(queryPlans(listTodos), 1); // [[{raw: "limit=20"}, {raw: "priority[$where]=1", mustRefuse: "…"}]]
 */
export function queryPlans(operation: FuzzOperation): fc.Arbitrary<readonly QueryPair[]> {
  const parameters = operation.parameters.filter((parameter) => parameter.in === "query");
  const hostile = hostileQueryPairs(operation);
  const plausible = parameters.map((parameter) => fc.option(plausiblePair(parameter, operation.recordFields), { nil: undefined, freq: 2 }));
  return fc
    .tuple(fc.tuple(...plausible), fc.array(fc.constantFrom(...hostile), { maxLength: 3 }))
    .map(([valid, bad]) => {
      const pairs: QueryPair[] = [];
      let length = 0;
      for (const pair of [...valid.filter((pair): pair is QueryPair => pair !== undefined), ...bad]) {
        if (length + pair.raw.length > MAX_QUERY_LENGTH) continue;
        length += pair.raw.length + 1;
        pairs.push(pair);
      }
      return pairs;
    });
}
