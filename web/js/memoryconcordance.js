// @ts-check
// The memory panel's search (concordance, GET …/memory/concordance?q=&language=): the translation
// memory's entries, the glossary's terms and the similar sentences for one target language, the found
// parts marked. From the search box, ↓ moves into the results, ↑ and ↓ between them, Esc back to the box.

import { api } from "./api.js";
import { $, h, num } from "./dom.js";
import { languageLabel } from "./memorylang.js";
import { markedPieces } from "./memoryspans.js";
import { changedOn, originText } from "./tmmodel.js";

/** @typedef {{source: string, target: string, origin: string, updatedAt: string | null, sourceSpans: [number, number][], targetSpans: [number, number][]}} MemoryHit */
/** @typedef {{id: string, source: string, target: string, kind: string, languages: string, sourceSpans: [number, number][], targetSpans: [number, number][]}} GlossaryHit */
/** @typedef {{score: number, source: string, target: string, origin: string}} SimilarHit */
/** @typedef {{query: string, language: string, memory: MemoryHit[], memoryTotal: number, glossary: GlossaryHit[], similar: SimilarHit[]}} Concordance */

/**
 * What the search reads from the panel (given by `setupConcordance`): the one language searched, its
 * tag for the texts' `lang`, and the project whose memory it is.
 * @typedef {{language: () => string | null, lang: () => string | null, project: () => string | null}} Where
 */

/** @type {Where} */
let where = { language: () => null, lang: () => null, project: () => null };

let token = 0;

/** A text with the spans' parts in <mark>. @param {string} cls @param {string} text @param {unknown} spans @param {string | null} [lang] */
function marked(cls, text, spans, lang = null) {
  return h(
    "div",
    { class: `concordance-text ${cls}`, lang, dir: "auto" },
    markedPieces(text, spans).map((p) => (p.mark ? h("mark", { text: p.text }) : p.text)),
  );
}

/** @param {string} label @param {HTMLElement[]} items */
function group(label, items) {
  if (!items.length) return [];
  return [h("h4", { class: "memory-results-heading", text: label }), h("ul", { class: "memory-results-list", "aria-label": label }, items)];
}

/** @param {...(HTMLElement | string | null)} children */
const hit = (...children) => h("li", { class: "concordance-hit", tabindex: "-1" }, ...children);

/** Show what the server found. @param {Concordance} data */
function render(data) {
  const lang = where.lang();
  const memory = (data.memory || []).map((m) =>
    hit(
      marked("concordance-source", m.source, m.sourceSpans),
      marked("concordance-target", m.target, m.targetSpans, lang),
      h("span", { class: "memory-meta", text: [originText(m.origin), changedOn(m.updatedAt)].filter(Boolean).join(" · ") }),
    ),
  );
  const glossary = (data.glossary || []).map((g) =>
    hit(
      marked("concordance-source", g.source, g.sourceSpans),
      marked("concordance-target", g.target, g.targetSpans, lang),
      h("span", { class: "memory-meta", text: g.kind === "forbidden" ? "never use this translation" : g.kind === "keep" ? "do not translate" : "glossary term" }),
    ),
  );
  // A similar sentence already listed as an entry holding the query is not listed twice.
  const listed = new Set((data.memory || []).map((m) => `${m.source}\u0000${m.target}`));
  const similar = (data.similar || []).filter((s) => !listed.has(`${s.source}\u0000${s.target}`)).map((s) =>
    hit(
      h("div", { class: "concordance-text concordance-source", dir: "auto", text: s.source }),
      h("div", { class: "concordance-text concordance-target", lang, dir: "auto", text: s.target }),
      h("span", { class: "memory-meta", text: `${num.format(Math.round(s.score))}% similar · ${originText(s.origin)}` }),
    ),
  );
  const total = data.memoryTotal ?? memory.length;
  const into = languageLabel(data.language);
  const summary = !memory.length && !glossary.length && !similar.length
    ? `Nothing in the memory into ${into} holds “${data.query}”.`
    : `“${data.query}” into ${into}: ${num.format(total)} in the translation memory${total > memory.length ? ` (the newest ${num.format(memory.length)} shown)` : ""}, ${num.format(glossary.length)} in the glossary.`;
  const box = $("memory-search-results");
  box.replaceChildren(
    h("p", { class: "hint memory-results-summary", text: summary }),
    ...group("Translation memory", memory),
    ...group("Glossary", glossary),
    ...group("Similar sentences", similar),
  );
  const first = /** @type {HTMLElement | null} */ (box.querySelector(".concordance-hit"));
  if (first) first.tabIndex = 0;
  box.hidden = false;
}

/** Search for what the box holds. */
export async function search() {
  const q = /** @type {HTMLInputElement} */ ($("memory-search-q")).value.trim();
  const box = $("memory-search-results");
  const language = where.language();
  const mine = ++token;
  if (!q) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  if (!language) {
    box.replaceChildren(h("p", { class: "form-error", text: "Choose one language above to search its memory." }));
    box.hidden = false;
    return;
  }
  box.setAttribute("aria-busy", "true");
  try {
    const data = await api.concordance(q, language, where.project());
    if (mine === token) render(data);
  } catch (err) {
    if (mine !== token) return;
    const e = /** @type {any} */ (err);
    const text = e.status === 404 || e.status === 405 ? "This server cannot search the memory yet." : `The memory could not be searched: ${e.detail || e.message}`;
    box.replaceChildren(h("p", { class: "form-error", text }));
    box.hidden = false;
  } finally {
    if (mine === token) box.removeAttribute("aria-busy");
  }
}

/** Forget the results (another session, another language). */
export function clearSearch() {
  token++;
  $("memory-search-results").hidden = true;
  $("memory-search-results").replaceChildren();
}

/** Move the focus among the results: ↑ ↓ Home End, Esc back to the box. @param {KeyboardEvent} e */
function onResultsKey(e) {
  const hits = /** @type {HTMLElement[]} */ ([...$("memory-search-results").querySelectorAll(".concordance-hit")]);
  const at = hits.indexOf(/** @type {HTMLElement} */ (e.target));
  // Keys typed here are the panel's: never a review shortcut (A approves a card).
  if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) e.stopPropagation();
  if (at < 0) return;
  /** @type {number | null} */
  let to = null;
  if (e.key === "ArrowDown") to = Math.min(at + 1, hits.length - 1);
  else if (e.key === "ArrowUp") to = at - 1;
  else if (e.key === "Home") to = 0;
  else if (e.key === "End") to = hits.length - 1;
  else if (e.key === "Escape") to = -1;
  else return;
  e.preventDefault();
  if (to < 0) return $("memory-search-q").focus();
  hits.forEach((el, i) => (el.tabIndex = i === to ? 0 : -1));
  hits[to].focus();
}

/** Wire the search box and its results. @param {Where} w */
export function setupConcordance(w) {
  where = w;
  $("memory-search").addEventListener("submit", (/** @type {Event} */ e) => {
    e.preventDefault();
    search();
  });
  $("memory-search-q").addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (e.key === "ArrowDown") {
      const first = /** @type {HTMLElement | null} */ ($("memory-search-results").querySelector(".concordance-hit"));
      if (!first) return;
      e.preventDefault();
      first.focus();
    } else if (e.key === "Escape") {
      const box = /** @type {HTMLInputElement} */ ($("memory-search-q"));
      if (!box.value) return;
      e.preventDefault();
      box.value = "";
      clearSearch();
    }
  });
  $("memory-search-results").addEventListener("keydown", onResultsKey);
}
