import { EngineError, ErrorCodes } from "../engine-error.js";

const VALID_FLAGS = new Set(["i", "m", "s", "x", "u"]);
const cache = new Map<string, RegExp>();
const CACHE_LIMIT = 1000;

/**
 * Compiles a MongoDB (PCRE) regular expression into a JS `RegExp`. Options `i`, `m`, `s` map to the
 * JS flags; `x` (extended) is applied by stripping unescaped whitespace and `#` comments; a leading
 * inline option group such as `(?i)` becomes flags; `(?P<name>` becomes `(?<name>`; `\A` and `\z`
 * anchor the subject. Invalid patterns throw 51091 like the server; unknown options throw 51108.
 * Results are cached, so callers can call this per query without cost.
 *
 * @example
 * toJsRegExp("^ab c", "ix").test("ABC"); // true
 */
export function toJsRegExp(pattern: string, options: string): RegExp {
  const key = options + "/" + pattern;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  if (pattern.includes("\0")) {
    throw new EngineError(ErrorCodes.BadValue, "Regular expression cannot contain an embedded null byte");
  }
  const flags = new Set<string>();
  for (const f of options) {
    if (!VALID_FLAGS.has(f)) throw new EngineError(51108, `invalid flag in regex options: ${f}`);
    flags.add(f);
  }
  let src = pattern;
  const inline = /^\(\?([imsx]+)\)/.exec(src);
  if (inline) {
    for (const f of inline[1]!) flags.add(f);
    src = src.slice(inline[0].length);
  }
  if (flags.has("x")) src = stripExtended(src);
  src = src.replace(/\(\?P</g, "(?<").replace(/\\A/g, "^").replace(/\\[zZ]/g, "$");
  let js = "";
  if (flags.has("i")) js += "i";
  if (flags.has("m")) js += "m";
  if (flags.has("s")) js += "s";
  let re: RegExp;
  try {
    // PCRE in the server runs in UTF-8 mode, so "." matches a whole code point: prefer the `u`
    // flag, and fall back when the pattern uses escapes that only non-unicode JS accepts.
    re = new RegExp(src, js + "u");
  } catch {
    try {
      re = new RegExp(src, js);
    } catch (e) {
      throw new EngineError(51091, `Regular expression is invalid: ${(e as Error).message}`);
    }
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, re);
  return re;
}

/** PCRE extended mode: whitespace and `#...` comments outside character classes are ignored. */
function stripExtended(src: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === "\\") {
      out += c + (src[i + 1] ?? "");
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      continue;
    }
    if (c === "#") {
      while (i < src.length && src[i] !== "\n") i++;
      continue;
    }
    if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v") continue;
    out += c;
  }
  return out;
}
