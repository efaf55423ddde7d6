// @ts-check
// Locked codes in a string (placeholders, directives, tags): where they are, which open and close a
// pair, and which a translation is missing or has too many of. No DOM: chips.js shows them, and
// codeedit.js / chipedit.js keep them whole in an edit box.
//
// A card or segment names its source's codes (`context.codes`, each distinct one once). A text's codes
// are found as the server finds them (langfacts/codes.py `code_changes`): by the syntaxes that read
// any of those codes whole, in the server's one table (`PATTERNS`, mirrored here and compared with
// it by tests/js/codes.test.mjs), plus, literally, any code no syntax reads (a format's own).

/** The server's table (langfacts/codes.py `PATTERNS`), in its order: longer syntaxes first. */
export const PATTERNS = /** @type {const} */ ({
  double_brace: String.raw`\{\{-?\s{0,20}[^{}\s][^{}]{0,100}\}\}`,
  dollar_brace: String.raw`\$\{[^{}\s]{1,80}\}`,
  nesting: String.raw`\$t\([^()]{1,200}\)`,
  ruby: String.raw`%\{[A-Za-z_][\w.]{0,80}\}|%<[A-Za-z_]\w{0,80}>[-+# ]{0,4}\d{0,3}(?:\.\d{1,3})?[bBcdeEfgGiosxXp]`,
  python: String.raw`%\([A-Za-z_]\w{0,80}\)[-+# ]{0,4}\d{0,3}(?:\.\d{1,3})?[sdifgeExXrc]`,
  apple_variable: String.raw`%(?:\d{1,2}\$?)?#@[A-Za-z_][\w.]{0,80}@`,
  apple_arg: String.raw`%arg\b`,
  printf: String.raw`%(?<![0-9]%)(?:\d{1,2}\$)?[-+#']{0,4}(?:\d{1,3}|\*)?(?:\.(?:\d{1,3}|\*))?(?:hh|h|ll|l|L|q|j|z|t)?[sdiufFeEgGxXoOcCpaA@]`,
  strftime: String.raw`%(?<![0-9]%)[-_0^#]?[EO]?(?::{1,2}z|[aAbBcCdDeFgGhHIjklLmMnNpPrRsStTuUvVwWxXyYzZ+])(?![A-Za-z])`,
  inline: String.raw`\{/?\d{1,4}\}`,
  brace: String.raw`\{[A-Za-z_0-9][\w.]{0,80}(?:\s{0,20},\s{0,20}[a-z]{1,20}(?:\s{0,20},[^{}]{0,100})?)?\}`,
  numbered_tags: String.raw`</?\d{1,3}/?>`,
  html: String.raw`</?[A-Za-z][\w:-]{0,40}(?:\s[^<>]{0,400})?/?>`,
});

/**
 * One code where it is in a text: `kind` "open" or "close" for the two ends of a pair (then `pair`
 * numbers the pair, in the order pairs open), else "single" (`pair` null), and `name`, what an open
 * and a close must share to pair (a tag's name, a number). `hue`, a paired code's colour: the place of
 * its pair's opening code among the source's opening codes, so a pair has one colour in the source, the
 * proposal and the edit, whatever else is missing.
 * @typedef {{code: string, start: number, end: number, kind: "open" | "close" | "single", name: string, pair: number | null, hue: number | null}} Token
 */

/** @param {string} s */
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The syntaxes, in the table's order, that read any of `codes` whole (`%Y` → strftime). @param {readonly string[]} codes */
export function syntaxesOf(codes) {
  return /** @type {(keyof typeof PATTERNS)[]} */ (Object.keys(PATTERNS)).filter((name) => {
    const whole = new RegExp(`^(?:${PATTERNS[name]})$`);
    return codes.some((c) => whole.test(c));
  });
}

/** @type {Map<string, RegExp | null>} */
const MATCHERS = new Map();

/** The pattern that finds `codes`' kind of codes in a text (global), or null for no codes. @param {readonly string[]} codes */
export function matcherFor(codes) {
  const key = JSON.stringify(codes);
  if (MATCHERS.has(key)) return /** @type {RegExp | null} */ (MATCHERS.get(key));
  const syntaxes = syntaxesOf(codes);
  const read = syntaxes.map((name) => new RegExp(`^(?:${PATTERNS[name]})$`));
  const literal = codes.filter((c) => c && !read.some((r) => r.test(c))).sort((a, b) => b.length - a.length);
  const parts = [...literal.map(escape), ...syntaxes.map((name) => PATTERNS[name])];
  const matcher = parts.length ? new RegExp(parts.map((p) => `(?:${p})`).join("|"), "g") : null;
  MATCHERS.set(key, matcher);
  return matcher;
}

const VOID = new Set(["br", "hr", "img", "input", "meta", "link", "wbr", "area", "base", "col", "embed", "source", "track", "param"]);

/** A code's end of a pair and the name its other end shares. @param {string} code @returns {{kind: Token["kind"], name: string}} */
export function shapeOf(code) {
  let m = /^\{(\/?)(\d{1,4})\}$/.exec(code);
  if (m) return { kind: m[1] ? "close" : "open", name: `#${m[2]}` };
  m = /^<(\/?)([A-Za-z0-9][\w:.-]*)(\s[^<>]*)?(\/?)>$/.exec(code);
  if (!m) return { kind: "single", name: code };
  const name = m[2].toLowerCase();
  if (m[1]) return { kind: "close", name };
  if (m[4] || VOID.has(name)) return { kind: "single", name };
  return { kind: "open", name };
}

/**
 * The codes of `text` (of the kinds `codes` name), in order, each open paired with the close that
 * ends it (a close pairs with the latest unclosed open of its name; an open never closed, or a close
 * with nothing open, is left unpaired: "single" for an open, "close" with `pair` null for a close).
 * `%%` is a literal percent, never a code.
 * @param {string} text @param {readonly string[]} codes @returns {Token[]}
 */
export function tokenize(text, codes) {
  const matcher = matcherFor(codes);
  if (!matcher || !text) return [];
  const masked = text.replace(/%%/g, "\0\0");
  /** @type {Token[]} */
  const out = [];
  matcher.lastIndex = 0;
  for (const m of masked.matchAll(matcher)) {
    if (!m[0]) continue;
    const start = m.index ?? 0;
    out.push({ code: text.slice(start, start + m[0].length), start, end: start + m[0].length, ...shapeOf(m[0]), pair: null, hue: null });
  }
  /** @type {Token[]} */
  const open = [];
  let pairs = 0;
  const openers = codes.filter((c) => shapeOf(c).kind === "open");
  for (const t of out) {
    if (t.kind === "open") open.push(t);
    else if (t.kind === "close") {
      const at = open.map((o) => o.name).lastIndexOf(t.name);
      if (at === -1) continue;
      const [o] = open.splice(at, 1);
      o.pair = t.pair = pairs++;
      const hue = openers.indexOf(o.code);
      o.hue = t.hue = hue === -1 ? openers.length + o.pair : hue;
    }
  }
  // Pairs numbered in the order they open.
  const order = out.filter((t) => t.kind === "open" && t.pair != null).map((t) => /** @type {number} */ (t.pair));
  for (const t of out) if (t.pair != null) t.pair = order.indexOf(t.pair);
  for (const t of open) if (t.pair == null) t.kind = "single";
  return out;
}

/** How often each code is in `text`. @param {string} text @param {readonly string[]} codes */
function counts(text, codes) {
  /** @type {Map<string, number>} */
  const n = new Map();
  for (const t of tokenize(text, codes)) n.set(t.code, (n.get(t.code) ?? 0) + 1);
  return n;
}

/**
 * What `text` does to the codes of its `source`: each code it lacks (`missing`, how many) and each it
 * has more often than the source or that the source lacks (`extra`), in source order then text order.
 * @param {string} source @param {string} text @param {readonly string[]} codes
 * @returns {{missing: {code: string, n: number}[], extra: {code: string, n: number}[]}}
 */
export function codeBalance(source, text, codes) {
  const want = counts(source, codes);
  const have = counts(text, codes);
  const missing = [...want].filter(([c, n]) => (have.get(c) ?? 0) < n).map(([code, n]) => ({ code, n: n - (have.get(code) ?? 0) }));
  const extra = [...have].filter(([c, n]) => n > (want.get(c) ?? 0)).map(([code, n]) => ({ code, n: n - (want.get(code) ?? 0) }));
  return { missing, extra };
}

/** The first code of `source`, in its order, that `text` does not hold as often (null when none is missing). @param {string} source @param {string} text @param {readonly string[]} codes */
export function nextMissing(source, text, codes) {
  const have = counts(text, codes);
  for (const t of tokenize(source, codes)) {
    const n = have.get(t.code) ?? 0;
    if (n > 0) have.set(t.code, n - 1);
    else return t.code;
  }
  return null;
}

/** A code as a chip shows it: a long tag by its name (`<a …>`), the rest as it is. @param {string} code */
export function chipLabel(code) {
  if (code.length <= 24) return code;
  const m = /^<([A-Za-z0-9][\w:.-]*)\s/.exec(code);
  return m ? `<${m[1]} …>` : `${code.slice(0, 20)}…`;
}
