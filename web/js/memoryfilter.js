// @ts-check
// The memory panel's language filter ("Into"): the session's target language by default, another
// language its entries name, all languages, or one typed ("Another language…": a name or a tag, Esc
// goes back). It says which language the panel lists (one, or ALL) and which one it searches and
// browses (one: with all languages listed, the session's).

import { $, h } from "./dom.js";
import { ALL, languageChoices, languageFromTitle, languageKey, OTHER, pairTarget } from "./memorylang.js";
import { langTag } from "./startlangs.js";
import { state } from "./state.js";

/**
 * The filter: the session whose default it holds, the target languages seen in its memory (or typed),
 * and the choice shown before "Another language…" was picked.
 */
const filter = { sessionId: /** @type {string | null} */ (null), seen: new Set(/** @type {string[]} */ ([])), last: "" };

/** What a change of language triggers (given by `setupFilter`): the panel read again. */
let changed = () => {};

/** The session's target language: its tag when known ("fr"), else the name its task gives, else null. */
export const sessionLanguage = () => state.lang || languageFromTitle(state.title);

/** The language the panel lists: one language, or ALL. */
export function chosenLanguage() {
  const value = /** @type {HTMLSelectElement} */ ($("memory-language")).value;
  return (value === OTHER ? filter.last : value) || sessionLanguage() || ALL;
}

/** The one language searched and browsed: the filter's, or with all languages listed the session's, else null. */
export function oneLanguage() {
  const chosen = chosenLanguage();
  return chosen !== ALL ? chosen : sessionLanguage();
}

/** The BCP 47 tag of a language given as a tag or a name, or null. @param {string | null} language */
export function tagOf(language) {
  if (!language || language === ALL || languageKey(language) === languageKey(state.lang)) return state.lang;
  return /^[a-z]{2,3}(-[a-z0-9]{1,8})*$/i.test(language) ? language : langTag(language);
}

/** The BCP 47 tag of the texts in the language searched and browsed (their `lang`), or null. */
export const textLang = () => tagOf(oneLanguage());

/** The filter's choices: the session's language, the others seen, every language; `wanted` (else the choice shown) kept. @param {string} [wanted] */
function renderChoices(wanted) {
  const select = /** @type {HTMLSelectElement} */ ($("memory-language"));
  const current = wanted ?? select.value;
  const languages = (state.team.languages || []).filter((l) => l !== "*");
  const choices = languageChoices(sessionLanguage(), [...filter.seen, ...languages]);
  select.replaceChildren(...choices.map((c) => h("option", { value: c.value, text: c.label })));
  const key = languageKey(current);
  const same = choices.find((c) => c.value === current) || (key ? choices.find((c) => languageKey(c.value) === key) : null);
  select.value = same ? same.value : choices[0].value;
}

/** The target languages the entries name join the choices. @param {{languages?: string}[]} entries */
export function noteLanguages(entries) {
  for (const e of entries) if (languageKey(pairTarget(e.languages))) filter.seen.add(pairTarget(e.languages));
  renderChoices();
}

/**
 * On entering another session: the filter back to its language. Whether the session is another.
 */
export function enterFilter() {
  if (filter.sessionId === state.sessionId) return false;
  filter.sessionId = state.sessionId;
  filter.seen = new Set();
  filter.last = "";
  $("memory-language-other").hidden = true;
  /** @type {HTMLSelectElement} */ ($("memory-language")).value = "";
  renderChoices();
  return true;
}

/** Show the language typed ("German", "de"): it joins the choices, chosen. */
function showTyped() {
  const typed = /** @type {HTMLInputElement} */ ($("memory-language-typed")).value.trim();
  if (!languageKey(typed) || !/^[\p{L}\p{M} ()'-]+$/u.test(typed)) {
    $("memory-error").textContent = "Type a language: a name (German) or a tag (de).";
    $("memory-error").hidden = false;
    $("memory-language-typed").focus();
    return;
  }
  $("memory-error").hidden = true;
  filter.seen.add(typed);
  closeTyped(typed);
}

/** Back from "Another language…" to the select, on `value` (or the choice before). @param {string} [value] */
function closeTyped(value = filter.last) {
  $("memory-language-other").hidden = true;
  /** @type {HTMLInputElement} */ ($("memory-language-typed")).value = "";
  renderChoices(value);
  filter.last = /** @type {HTMLSelectElement} */ ($("memory-language")).value;
  $("memory-language").focus();
  changed();
}

/** Wire the filter. @param {{changed: () => void}} actions */
export function setupFilter({ changed: onChange }) {
  changed = onChange;
  const select = /** @type {HTMLSelectElement} */ ($("memory-language"));
  select.addEventListener("focus", () => {
    if (select.value !== OTHER) filter.last = select.value;
  });
  select.addEventListener("change", () => {
    if (select.value === OTHER) {
      $("memory-language-other").hidden = false;
      $("memory-language-typed").focus();
      return;
    }
    filter.last = select.value;
    $("memory-language-other").hidden = true;
    changed();
  });
  $("memory-language-other").addEventListener("submit", (/** @type {Event} */ e) => {
    e.preventDefault();
    showTyped();
  });
  $("memory-language-typed").addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (e.key !== "Escape") return;
    e.preventDefault();
    closeTyped();
  });
}
