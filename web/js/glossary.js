// @ts-check
// The owner's glossary in the cards' sources: which entries apply to the session's target language,
// and where their terms occur (case-insensitive, whole words), without the DOM.

/** @typedef {{source: string, target: string, languages?: string}} Term */
/** @typedef {{text: string, term: Term | null}} Piece */

/** Whether an entry for `languages` ("auto>french") applies to a session into `language` ("French"). @param {string | undefined} languages @param {string | null} language */
export function appliesTo(languages, language) {
  const entry = ((languages || "auto>*").split(">")[1] || "*").trim().toLowerCase();
  const wanted = (language || "unknown").trim().toLowerCase();
  return entry === "*" || entry === "unknown" || wanted === "unknown" || entry === wanted;
}

const WORD = /[\p{L}\p{N}_]/u;

/** @param {string} s */
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * `text` cut into pieces, each a glossary term's whole-word occurrence (ignoring case) or plain text.
 * Longer terms win where two overlap ("command line" over "command").
 * @param {string} text @param {Term[]} terms @returns {Piece[]}
 */
export function glossaryPieces(text, terms) {
  const usable = terms.filter((t) => t.source && t.source.trim()).sort((a, b) => b.source.length - a.source.length);
  if (!text || !usable.length) return text ? [{ text, term: null }] : [];
  /** @type {Map<string, Term>} */
  const byKey = new Map();
  for (const t of usable) if (!byKey.has(t.source.trim().toLowerCase())) byKey.set(t.source.trim().toLowerCase(), t);
  const pattern = new RegExp([...byKey.keys()].map(escape).join("|"), "giu");
  /** @type {Piece[]} */
  const out = [];
  let pos = 0;
  for (const m of text.matchAll(pattern)) {
    const start = m.index ?? 0;
    const end = start + m[0].length;
    const before = start > 0 ? text[start - 1] : "";
    const after = end < text.length ? text[end] : "";
    if ((before && WORD.test(before)) || (after && WORD.test(after))) continue;
    if (start > pos) out.push({ text: text.slice(pos, start), term: null });
    out.push({ text: m[0], term: byKey.get(m[0].toLowerCase()) || null });
    pos = end;
  }
  if (pos < text.length) out.push({ text: text.slice(pos), term: null });
  return out;
}
