// @ts-check
// The owner's glossary in the cards' sources: which entries apply to the session's target language,
// where their terms occur (case-insensitive, whole words), and terms to keep ("Clippy → Clippy") in
// the cards' warnings, without the DOM.

import { coversLanguage } from "./memorylang.js";

/** @typedef {{source: string, target: string, languages?: string, kind?: string}} Term */
/** @typedef {{text: string, term: Term | null}} Piece */

/** Whether an entry for `languages` ("auto>french", "auto>fr") applies to a session into `language` ("French", "fr"). @param {string | undefined} languages @param {string | null} language */
export function appliesTo(languages, language) {
  return coversLanguage(languages, language);
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
  // Longer terms first; of one term, its preferred (or kept) entry before its forbidden translations.
  const usable = terms
    .filter((t) => t.source && t.source.trim())
    .sort((a, b) => b.source.length - a.source.length || Number(a.kind === "forbidden") - Number(b.kind === "forbidden"));
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

/** @typedef {import("./types.js").Warning} Warning */

/** The server's glossary warning (agent_core/qa.py): «term» should be translated as «target». */
const GLOSSARY_WARNING = /^Glossary: «(.+)» should be translated as «(.+)»\.?$/su;

/**
 * Whether an entry is a term to keep, not to translate: its translation is the term itself
 * ("Clippy → Clippy"), ignoring case and surrounding spaces.
 * @param {string} source @param {string} target
 */
export function isKeepTerm(source, target) {
  const s = source.trim();
  return s !== "" && s.toLocaleLowerCase() === target.trim().toLocaleLowerCase();
}

/**
 * Whether `text` keeps `term`: the term begins a word of the text, in any case, with or without an
 * ending (a kept name still takes the target language's inflection: "Clippys", "Clippyä").
 * @param {string} text @param {string} term
 */
export function keepsTerm(text, term) {
  const words = term.trim().split(/\s+/u).filter(Boolean).map(escape);
  if (!words.length) return false;
  return new RegExp(`(?<![\\p{L}\\p{N}_])${words.join("\\s+")}`, "iu").test(text);
}

/**
 * The warnings a card shows for its `text` (the proposal, or the reviewer's edit): the server's, but a
 * glossary warning on a term to keep says "keep «X» as it is" instead of "should be translated as «X»",
 * and is dropped when the text keeps the term (then there is nothing to warn about, and "Approve all"
 * does not ask).
 * @param {Warning[]} warnings @param {string} text @returns {Warning[]}
 */
export function shownWarnings(warnings, text) {
  /** @type {Warning[]} */
  const out = [];
  for (const w of warnings) {
    if (!w) continue;
    const message = typeof w === "string" ? w : w.message;
    const m = GLOSSARY_WARNING.exec(message || "");
    if (!m || (typeof w !== "string" && w.code && w.code !== "glossary") || !isKeepTerm(m[1], m[2])) {
      out.push(w);
      continue;
    }
    if (keepsTerm(text, m[1])) continue;
    const kept = `Glossary: keep «${m[1]}» as it is (a term not to translate).`;
    out.push(typeof w === "string" ? kept : { ...w, message: kept });
  }
  return out;
}
