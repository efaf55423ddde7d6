// @ts-check
// The session's source language in the top bar: shown ("English (en)", or "auto" while the server has
// none), changed by typing or picking another (Enter or leaving the field sends it), refusals shown.

import { api } from "./api.js";
import { $, h } from "./dom.js";
import { changeSourceLanguage, COMMON_SOURCES, languageName, sourceLanguageOf } from "./languagetag.js";
import { state } from "./state.js";
import { setStatus, showError } from "./status.js";

/** What the field shows now. */
let shown = sourceLanguageOf(null);
let sending = false;

/** Show the source language of a session view (null: not known yet). @param {Partial<import("./types.js").SessionView> | null} view */
export function showSourceLanguage(view) {
  shown = sourceLanguageOf(view);
  const input = $("source-lang");
  input.value = shown.known ? shown.label : "";
  input.title = shown.known
    ? `The document's language: ${shown.label}. Exports name it. Type or pick another to change it.`
    : "Not set: the server detects it from the document. Type or pick a language to set it.";
}

async function apply() {
  const input = $("source-lang");
  const typed = input.value.trim();
  if (sending || !state.sessionId || typed === (shown.known ? shown.label : "")) return;
  if (!typed) {
    showSourceLanguage({ sourceLanguage: shown.tag || null }); // it cannot be unset: show it again
    return;
  }
  sending = true;
  input.disabled = true;
  const sid = state.sessionId;
  try {
    const result = await changeSourceLanguage(api, sid, typed);
    if (sid !== state.sessionId) return;
    if (result.ok) {
      showSourceLanguage({ sourceLanguage: result.view?.sourceLanguage ?? result.tag });
      setStatus(`Source language set to ${shown.label}.`);
    } else {
      showSourceLanguage({ sourceLanguage: shown.tag || null });
      showError(new Error(result.message), null);
    }
  } finally {
    sending = false;
    input.disabled = false;
  }
}

export function setupSourceLanguage() {
  $("source-languages").replaceChildren(...COMMON_SOURCES.map((tag) => h("option", { value: `${languageName(tag)} (${tag})` })));
  const input = $("source-lang");
  input.addEventListener("change", apply);
  input.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      apply();
    } else if (e.key === "Escape") {
      showSourceLanguage({ sourceLanguage: shown.tag || null });
      input.blur();
    }
  });
  showSourceLanguage(null);
}
