// @ts-check
// Concordance from a card: a word or phrase (the text selected in the card's source, or typed) searched
// in the translation memory and the glossary for the session's target language (the project's memory
// in a project's session), each hit with the matched text marked.

import { api } from "./api.js";
import { h, kbd, num } from "./dom.js";
import { state } from "./state.js";
import { markedPieces } from "./memoryspans.js";

/**
 * @typedef {{source: string, target: string, origin?: string, sourceSpans?: number[][], targetSpans?: number[][]}} MemoryHit
 * @typedef {{source: string, target: string, kind?: string, sourceSpans?: number[][], targetSpans?: number[][]}} TermHit
 * @typedef {{query: string, memory: MemoryHit[], memoryTotal: number, glossary: TermHit[], similar: {score: number, source: string, target: string}[]}} Concordance
 */

/** `text` with the spans marked. @param {string} text @param {number[][] | undefined} spans */
const marked = (text, spans) => markedPieces(text, spans).map((p) => (p.mark ? h("mark", { class: "conc-hit", text: p.text }) : p.text));

/** One hit: its source, its translation. @param {string} cls @param {Node | string | null} badge @param {MemoryHit | TermHit} hit */
const hitRow = (cls, badge, hit) =>
  h(
    "li",
    { class: `conc-row ${cls}` },
    badge,
    h("span", { class: "conc-source" }, marked(hit.source, hit.sourceSpans)),
    h("span", { class: "conc-arrow", "aria-hidden": "true", text: "→" }),
    h("span", { class: "conc-target", lang: state.lang, dir: "auto" }, marked(hit.target, hit.targetSpans)),
  );

/** The answer as lists: the glossary's terms, the memory's entries, the memory's close matches. @param {Concordance} r */
function results(r) {
  const parts = [];
  if (r.glossary.length) {
    parts.push(h("h4", { text: `Glossary (${num.format(r.glossary.length)})` }));
    parts.push(h("ul", { class: "conc-list conc-glossary" }, r.glossary.map((g) => hitRow("conc-term", h("span", { class: `conc-kind conc-kind-${g.kind || "preferred"}`, text: g.kind || "term" }), g))));
  }
  if (r.memory.length) {
    const more = r.memoryTotal > r.memory.length ? ` of ${num.format(r.memoryTotal)}` : "";
    parts.push(h("h4", { text: `Translation memory (${num.format(r.memory.length)}${more})` }));
    parts.push(h("ul", { class: "conc-list conc-memory" }, r.memory.map((m) => hitRow("conc-entry", null, m))));
  }
  const similar = (r.similar || []).filter((s) => !r.memory.some((m) => m.source === s.source && m.target === s.target));
  if (similar.length) {
    parts.push(h("h4", { text: "Close matches" }));
    parts.push(h("ul", { class: "conc-list conc-similar" }, similar.map((s) => hitRow("conc-entry", h("span", { class: "conc-score", text: `${Math.round(s.score)}%` }), s))));
  }
  return parts.length ? parts : [h("p", { class: "hint", text: `Nothing in the memory or the glossary holds “${r.query}”.` })];
}

/** A card's concordance, closed until asked for. */
export function concordanceBox() {
  const input = /** @type {HTMLInputElement} */ (h("input", { type: "search", class: "conc-query", placeholder: "A word or phrase; select one in the source", "aria-label": "Search the memory and glossary", maxlength: "200" }));
  const out = h("div", { class: "conc-results", "aria-live": "polite" });
  const form = h("form", { class: "conc-form" }, input, h("button", { type: "submit", class: "button button-secondary button-small", text: "Search" }));
  const box = h("details", { class: "card-concordance" }, h("summary", { "aria-keyshortcuts": "C F3" }, "Concordance ", kbd("C")), form, out);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    search(box);
  });
  // The box's own keys are not the card's shortcuts.
  input.addEventListener("keydown", (e) => e.stopPropagation());
  return box;
}

let token = 0;

/** Search the query of `box`'s field. @param {HTMLElement} box */
async function search(box) {
  const input = /** @type {HTMLInputElement} */ (box.querySelector(".conc-query"));
  const out = /** @type {HTMLElement} */ (box.querySelector(".conc-results"));
  const q = input.value.trim();
  if (!q) return;
  if (!state.lang) {
    out.replaceChildren(h("p", { class: "hint", text: "The session's target language is not known yet." }));
    return;
  }
  const mine = ++token;
  out.replaceChildren(h("p", { class: "hint", text: "Searching…" }));
  try {
    const r = /** @type {Concordance} */ (await api.concordance(q.slice(0, 200), state.lang, state.team.project));
    if (mine === token) out.replaceChildren(...results(r));
  } catch (err) {
    if (mine === token) out.replaceChildren(h("p", { class: "field-error", text: `The search failed: ${/** @type {Error} */ (err).message}` }));
  }
}

/**
 * Open `card`'s concordance on the text selected in it (its source, most often), else on what its field
 * holds, and search.
 * @param {HTMLElement} card
 */
export function openConcordance(card) {
  const box = /** @type {HTMLDetailsElement | null} */ (card.querySelector(".card-concordance"));
  if (!box) return;
  const selection = window.getSelection();
  const field = document.activeElement;
  const typed = field instanceof HTMLTextAreaElement && card.contains(field) ? field.value.slice(field.selectionStart, field.selectionEnd) : "";
  const shown = selection && !selection.isCollapsed && card.contains(selection.anchorNode) ? selection.toString() : "";
  const picked = (typed || shown).replace(/\s+/g, " ").trim();
  const input = /** @type {HTMLInputElement} */ (box.querySelector(".conc-query"));
  if (picked) input.value = picked.slice(0, 200);
  box.open = true;
  if (input.value.trim()) search(box);
  else input.focus();
}
