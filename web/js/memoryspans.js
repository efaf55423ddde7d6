// @ts-check
// A concordance hit's text cut at the server's spans (GET …/memory/concordance: `sourceSpans`,
// `targetSpans`), without the DOM, for the panel to wrap the found parts in <mark>.
//
// The server counts characters as Python does, one per code point; a JavaScript string counts UTF-16
// units, so an emoji or another character outside the Basic Multilingual Plane before a match would
// shift every later span by one. The text is cut by code points.

/** @typedef {{text: string, mark: boolean}} Piece */

/**
 * The spans as the text can hold them: whole numbers, within the text, non-empty, in order, and
 * overlapping or touching ones joined.
 * @param {unknown} spans @param {number} length the text's length in code points
 * @returns {[number, number][]}
 */
export function cleanSpans(spans, length) {
  if (!Array.isArray(spans)) return [];
  /** @type {[number, number][]} */
  const usable = [];
  for (const span of spans) {
    if (!Array.isArray(span) || span.length !== 2) continue;
    const [a, b] = span;
    if (!Number.isInteger(a) || !Number.isInteger(b)) continue;
    const start = Math.max(0, a);
    const end = Math.min(length, b);
    if (start < end) usable.push([start, end]);
  }
  usable.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  /** @type {[number, number][]} */
  const joined = [];
  for (const span of usable) {
    const last = joined[joined.length - 1];
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else joined.push([span[0], span[1]]);
  }
  return joined;
}

/**
 * `text` as pieces, the spans' parts marked ("Open the <mark>tool</mark>."); spans that do not fit
 * the text are left out, so a stale or malformed answer shows plain text, never a broken one.
 * @param {string} text @param {unknown} spans `[start, end]` offsets in code points, end exclusive
 * @returns {Piece[]}
 */
export function markedPieces(text, spans) {
  const chars = Array.from(text || "");
  /** @type {Piece[]} */
  const out = [];
  let pos = 0;
  for (const [start, end] of cleanSpans(spans, chars.length)) {
    if (start > pos) out.push({ text: chars.slice(pos, start).join(""), mark: false });
    out.push({ text: chars.slice(start, end).join(""), mark: true });
    pos = end;
  }
  if (pos < chars.length) out.push({ text: chars.slice(pos).join(""), mark: false });
  return out;
}
