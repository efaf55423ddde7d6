// @ts-check
// Text measures the way the server counts them: Python's len() counts code points, JavaScript's
// .length counts UTF-16 units (an emoji is 2), so every count and offset shown goes through here.

/** The number of characters as the server counts them (code points). @param {string} text */
export function codePoints(text) {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/**
 * A function from the server's code point offsets to string indexes of `text`.
 * @param {string} text
 * @returns {(cp: number) => number}
 */
export function unitIndexer(text) {
  if (!/[\uD800-\uDFFF]/.test(text)) return (cp) => cp;
  /** @type {number[]} */
  const map = [];
  let i = 0;
  for (const ch of text) {
    map.push(i);
    i += ch.length;
  }
  map.push(i);
  return (cp) => map[Math.min(Math.max(cp, 0), map.length - 1)];
}

/** The 1-based line of string index `offset`. @param {string} text @param {number} offset */
export function lineOf(text, offset) {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** `text` cut to about `max` characters on a word boundary, with an ellipsis. @param {string} text @param {number} max */
export function excerpt(text, max = 80) {
  const flat = text.replace(/\s+/g, " ").trim();
  if (codePoints(flat) <= max) return flat;
  const cut = Array.from(flat).slice(0, max).join("");
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * At most `lines` lines of `text` as they are (code keeps its line breaks and indentation), "…" when
 * some are left out; blank lines at either end dropped.
 * @param {string} text @param {number} [lines]
 */
export function lineExcerpt(text, lines = 4) {
  const all = text.replace(/^\s*\n|\s+$/g, "").split("\n");
  return all.length <= lines ? all.join("\n") : `${all.slice(0, lines).join("\n")}\n…`;
}

/** "1 unit", "3 units". @param {number} n @param {string} one @param {string} many */
export function plural(n, one, many) {
  return `${new Intl.NumberFormat("en").format(n)} ${n === 1 ? one : many}`;
}
