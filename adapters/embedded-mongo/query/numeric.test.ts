import test from "ava";
import { Decimal128, Double, Int32, Long } from "bson";
import { add, compareNumbers, convertNumber, divide, multiply, numericKind, subtract, toInt64 } from "./numeric.js";

function describe(v: unknown): string {
  return `${(v as { _bsontype: string })._bsontype}(${String(v)})`;
}

test("int + int stays Int32; overflow promotes to Long", (t) => {
  t.is(describe(add(new Int32(1), new Int32(2))), "Int32(3)");
  t.is(describe(add(new Int32(2147483647), new Int32(1))), "Long(2147483648)");
  t.is(describe(add(new Int32(-2147483648), new Int32(-1))), "Long(-2147483649)");
});

test("JS numbers count as Int32 when integral, else Double", (t) => {
  t.is(numericKind(3), "int");
  t.is(numericKind(3.5), "double");
  t.is(numericKind(2 ** 40), "double");
  t.is(describe(add(new Int32(1), 2)), "Int32(3)");
});

test("Long overflow: Double for aggregation, error for $inc", (t) => {
  const max = Long.fromString("9223372036854775807");
  t.is(describe(add(max, new Int32(1), "double")), "Double(9223372036854776000)");
  const err = t.throws(() => add(max, new Int32(1), "error"));
  t.is((err as unknown as { code: number }).code, 2);
  t.is(describe(add(Long.fromString("9007199254740993"), new Int32(1))), "Long(9007199254740994)");
});

test("any Double gives Double; any Decimal128 gives exact Decimal128", (t) => {
  t.is(describe(add(new Int32(1), new Double(1))), "Double(2)");
  t.is(describe(add(Decimal128.fromString("0.1"), Decimal128.fromString("0.2"))), "Decimal128(0.3)");
  t.is(describe(add(Decimal128.fromString("1.5"), Long.fromString("9007199254740993"))), "Decimal128(9007199254740994.5)");
  // Doubles join decimal arithmetic rounded to 15 significant digits, like the server.
  t.is(describe(add(Decimal128.fromString("1"), new Double(0.1))), "Decimal128(1.100000000000000)");
});

test("multiply promotes int overflow to an exact Long", (t) => {
  t.is(describe(multiply(new Int32(65536), new Int32(65536))), "Long(4294967296)");
  t.is(describe(multiply(new Int32(2147483647), new Int32(2147483647))), "Long(4611686014132420609)");
  t.is(describe(multiply(new Int32(3), new Double(0.5))), "Double(1.5)");
  t.is(describe(multiply(Decimal128.fromString("1.10"), Decimal128.fromString("3"))), "Decimal128(3.30)");
  t.throws(() => multiply(Long.fromString("9223372036854775807"), new Int32(2), "error"));
});

test("subtract and divide", (t) => {
  t.is(describe(subtract(new Int32(5), new Int32(7))), "Int32(-2)");
  t.is(describe(divide(new Int32(1), new Int32(4))), "Double(0.25)");
  t.is(describe(divide(Decimal128.fromString("1"), new Int32(3))), "Decimal128(0.3333333333333333333333333333333333)");
  t.is(describe(divide(Decimal128.fromString("10"), Decimal128.fromString("4"))), "Decimal128(2.5)");
  t.throws(() => divide(new Int32(1), new Int32(0)));
});

test("decimal rounding keeps 34 digits, half to even", (t) => {
  const big = Decimal128.fromString("9999999999999999999999999999999999");
  t.is(describe(add(big, Decimal128.fromString("1"))), "Decimal128(1.000000000000000000000000000000000E+34)");
});

test("compareNumbers is exact", (t) => {
  t.is(compareNumbers(Long.fromString("9007199254740993"), 9007199254740992), 1);
  t.is(compareNumbers(Decimal128.fromString("2.5"), new Double(2.5)), 0);
  t.is(compareNumbers(new Double(NaN), new Int32(-5)), -1);
});

test("toInt64 and convertNumber", (t) => {
  t.is(toInt64(new Double(4)), 4n);
  t.is(toInt64(4.5), undefined);
  t.is(toInt64(Decimal128.fromString("12.0")), 12n);
  t.is(describe(convertNumber(new Double(3.9), "int")), "Int32(3)");
  t.is(convertNumber(new Double(1e12), "int"), undefined);
  t.is(describe(convertNumber(new Int32(3), "double")), "Double(3)");
});
