import test from "ava";
import { safeEqual, tokenDigest } from "./token-digest.js";

test("safeEqual compares exactly", (t) => {
  t.true(safeEqual("abc", "abc"));
  t.false(safeEqual("abc", "abd"));
  t.false(safeEqual("abc", "abcd"));
});

test("tokenDigest is RFC 7636's S256", (t) => {
  // RFC 7636 appendix B.
  t.is(tokenDigest("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  t.not(tokenDigest("a"), tokenDigest("b"));
});
