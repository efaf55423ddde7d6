// @ts-check
// The memory panel: what the agent learned about this reviewer (glossary, style notes), or in a
// project's session what it learned for the project (its members share it), for one target language
// (the session's by default) or all; adding and deleting entries, importing TMX, CSV or TBX files,
// searching the memory (memoryconcordance.js) and browsing its translation memory (tmbrowse.js).

import { api } from "./api.js";
import { $, h, num, store } from "./dom.js";
import { clearSearch, search, setupConcordance } from "./memoryconcordance.js";
import { chosenLanguage, enterFilter, noteLanguages, oneLanguage, sessionLanguage, setupFilter, tagOf, textLang } from "./memoryfilter.js";
import { ALL, filterByLanguage, languageFromTitle, languageKey, pairTarget } from "./memorylang.js";
import { languagesLabel, originLabel } from "./memorytext.js";
import { state } from "./state.js";
import { refreshTm, setupTm } from "./tmbrowse.js";

export { languageFromTitle };

/** @param {string} text */
function showError(text) {
  $("memory-error").textContent = text;
  $("memory-error").hidden = false;
}

/** What a changed glossary triggers outside the panel (given by `setupMemory`): the cards mark its terms again. */
let glossaryChanged = () => {};

let memoryToken = 0;

/** Show the memory for the language chosen, and search it again for what the box holds. */
function languageChanged() {
  refreshMemory();
  if (/** @type {HTMLInputElement} */ ($("memory-search-q")).value.trim()) search();
}

export async function refreshMemory() {
  if (state.view !== "session") return;
  if (enterFilter()) {
    // Another session: its own language, no search, the whole translation memory.
    /** @type {HTMLInputElement} */ ($("memory-search-q")).value = "";
    /** @type {HTMLInputElement} */ ($("memory-tm-q")).value = "";
    clearSearch();
  }
  const token = ++memoryToken;
  const language = chosenLanguage();
  try {
    const data = await api.memory(state.team.project, language === ALL ? null : language);
    if (token !== memoryToken) return;
    $("memory-error").hidden = true;
    renderMemory(data, language);
  } catch (err) {
    if (token !== memoryToken) return;
    showError(`The memory could not be loaded: ${/** @type {Error} */ (err).message}`);
  }
  refreshTm();
}

/** @type {Record<string, string>} how the list names a glossary entry's kind (a preferred one goes unsaid) */
const KIND_LABEL = { forbidden: "never use", keep: "do not translate" };

/** @param {{id: string, origin: string, languages: string, kind?: string, source?: string, target?: string, text?: string}} entry @param {string} label @param {any} text */
function memoryItem(entry, label, text) {
  const origin = originLabel(entry.target != null ? "glossary" : "style", entry.origin);
  const item = h(
    "li",
    { class: "memory-item", "data-entry-id": entry.id, "data-origin": entry.origin },
    h("span", { class: "memory-text" }, text),
    h("span", { class: "memory-meta", text: [languagesLabel(entry.languages), KIND_LABEL[entry.kind || ""], origin].filter(Boolean).join(" · ") }),
    h("button", {
      type: "button",
      class: "button button-quiet button-small memory-edit",
      "aria-label": `Edit ${label}`,
      text: "Edit",
      onclick: () => openEditor(item, entry, label),
    }),
    h("button", {
      type: "button",
      class: "button button-quiet button-small memory-delete",
      "aria-label": `Delete ${label}`,
      text: "Delete",
      onclick: () => deleteEntry(entry.id),
    }),
  );
  return item;
}

/**
 * The entry's inline editor in place of its text: Enter saves, Esc cancels.
 * @param {HTMLElement} item @param {{id: string, source?: string, target?: string, kind?: string, text?: string}} entry @param {string} label
 */
function openEditor(item, entry, label) {
  const glossary = entry.target != null;
  /** @param {string} cls @param {string} value @param {string} aria */
  const field = (cls, value, aria) => /** @type {HTMLInputElement} */ (h("input", { type: "text", class: `memory-edit-field ${cls}`, value, "aria-label": aria, maxlength: glossary ? "200" : "500" }));
  const fields = glossary
    ? [field("memory-edit-source", entry.source || "", "Term"), field("memory-edit-target", entry.target || "", "Translation")]
    : [field("memory-edit-text", entry.text || "", "Style note")];
  const kind = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { class: "memory-edit-kind", "aria-label": "Kind" },
      h("option", { value: "preferred", text: "Use it" }),
      h("option", { value: "forbidden", text: "Never use it" }),
      h("option", { value: "keep", text: "Keep the term" }),
    )
  );
  kind.value = entry.kind || "preferred";
  const form = h(
    "form",
    { class: "memory-edit-form", "aria-label": `Edit ${label}` },
    ...fields,
    glossary ? kind : null,
    h("button", { type: "submit", class: "button button-primary button-small", text: "Save" }),
    h("button", { type: "button", class: "button button-quiet button-small memory-edit-cancel", text: "Cancel" }),
  );
  const close = () => {
    form.replaceWith(...shown);
    /** @type {HTMLElement | null} */ (item.querySelector(".memory-edit"))?.focus({ preventScroll: true });
  };
  const shown = [...item.children];
  item.replaceChildren(form);
  fields[glossary ? 1 : 0].focus();
  fields[glossary ? 1 : 0].select();
  form.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      close();
    }
  });
  /** @type {HTMLElement} */ (form.querySelector(".memory-edit-cancel")).addEventListener("click", close);
  form.addEventListener("submit", async (/** @type {Event} */ e) => {
    e.preventDefault();
    const values = fields.map((f) => f.value.trim());
    if (values.some((v) => !v)) {
      showError(glossary ? "Give the term and its translation." : "The note cannot be empty.");
      return;
    }
    const body = glossary ? { source: values[0], target: values[1], kind: kind.value } : { text: values[0] };
    try {
      await api.updateMemory(entry.id, body, state.team.project);
      $("memory-error").hidden = true;
      await refreshMemory();
      /** @type {HTMLElement | null} */ (document.querySelector(`.memory-item[data-entry-id="${entry.id}"] .memory-edit`))?.focus({ preventScroll: true });
    } catch (err) {
      const status = /** @type {any} */ (err).status;
      showError(status === 404 || status === 405 ? "This entry is gone, or this server cannot edit entries yet." : `The entry could not be saved: ${/** @type {Error} */ (err).message}`);
    }
  });
}

/**
 * Show the entries for `language` (a server that does not filter yet sends all: they are filtered
 * here too). The cards' glossary is the session's language's, whatever the panel shows.
 * @param {{glossary?: any[], styleNotes?: any[]}} data @param {string} language one language, or ALL
 */
function renderMemory(data, language) {
  noteLanguages([...(data.glossary || []), ...(data.styleNotes || [])]);
  const glossary = filterByLanguage(data.glossary || [], language);
  const notes = filterByLanguage(data.styleNotes || [], language);
  const session = sessionLanguage();
  if (language === ALL || !session || languageKey(language) === languageKey(session)) {
    state.glossary = filterByLanguage(data.glossary || [], session);
    glossaryChanged();
  }
  $("memory-glossary").replaceChildren(
    ...glossary.map((e) =>
      memoryItem(e, `the term “${e.source}”`, [
        h("span", { class: "memory-source", text: e.source }),
        e.kind === "forbidden"
          ? h("span", { class: "memory-arrow", "aria-label": "never translated as", text: " ≠ " })
          : h("span", { class: "memory-arrow", "aria-label": "translated as", text: " → " }),
        h("span", { class: "memory-target", lang: tagOf(pairTarget(e.languages)), text: e.target }),
      ]),
    ),
  );
  $("memory-notes").replaceChildren(...notes.map((n) => memoryItem(n, `the note “${n.text}”`, n.text)));
  $("memory-glossary-empty").hidden = glossary.length > 0;
  $("memory-notes-empty").hidden = notes.length > 0;
  const terms = `${num.format(glossary.length)} ${glossary.length === 1 ? "term" : "terms"}`;
  const noted = `${num.format(notes.length)} ${notes.length === 1 ? "note" : "notes"}`;
  $("memory-count").textContent = `(${terms}, ${noted})`;
}

/** @param {string} entryId */
async function deleteEntry(entryId) {
  const item = document.querySelector(`.memory-item[data-entry-id="${entryId}"]`);
  const next = /** @type {HTMLElement | null} */ (item?.nextElementSibling?.querySelector(".memory-delete")) || $("memory-source");
  try {
    await api.deleteMemory(entryId, state.team.project);
  } catch (err) {
    if (/** @type {any} */ (err).status !== 404) {
      showError(`The entry could not be deleted: ${/** @type {Error} */ (err).message}`);
      return;
    }
  }
  item?.remove();
  next.focus({ preventScroll: true });
  refreshMemory();
}

/** The import format: chosen, else from the file name. @param {string} chosen @param {string} name */
export function importFormat(chosen, name) {
  if (chosen) return chosen;
  const ext = (/\.([a-z0-9]+)$/i.exec(name)?.[1] || "").toLowerCase();
  return { tmx: "tmx", csv: "csv", tbx: "tbx" }[ext] || "";
}

async function importFile() {
  const input = $("memory-import-file");
  const file = input.files?.[0];
  const result = $("memory-import-result");
  result.hidden = true;
  if (!file) {
    showError("Choose a TMX, CSV or TBX file to import.");
    input.focus();
    return;
  }
  const format = importFormat($("memory-import-format").value, file.name);
  if (!format) {
    showError("Say which format the file is in (TMX, CSV or TBX).");
    $("memory-import-format").focus();
    return;
  }
  $("memory-import-button").disabled = true;
  try {
    const r = await api.importMemory(format, await file.text(), state.team.project);
    $("memory-error").hidden = true;
    result.textContent = `Imported ${file.name}: ${num.format(r.added)} added, ${num.format(r.updated)} updated, ${num.format(r.skipped)} skipped.`;
    result.hidden = false;
    input.value = "";
    await refreshMemory();
  } catch (err) {
    const e = /** @type {any} */ (err);
    showError(e.status === 404 || e.status === 405 ? "This server cannot import memory files yet." : `The file could not be imported: ${e.message}`);
  } finally {
    $("memory-import-button").disabled = false;
  }
}

/** Wire the panel. @param {{glossaryChanged: () => void}} actions */
export function setupMemory({ glossaryChanged: onGlossary }) {
  glossaryChanged = onGlossary;
  const panel = $("memory");
  panel.open = store.get("memoryOpen", true) !== false;
  panel.addEventListener("toggle", () => store.set("memoryOpen", panel.open));
  const where = { language: oneLanguage, lang: textLang, project: () => state.team.project };
  setupConcordance(where);
  setupTm(where);
  setupFilter({ changed: languageChanged });
  $("memory-import").addEventListener("submit", (/** @type {Event} */ e) => {
    e.preventDefault();
    importFile();
  });
  $("memory-add").addEventListener("submit", async (/** @type {Event} */ e) => {
    e.preventDefault();
    const source = $("memory-source").value.trim();
    const target = $("memory-target").value.trim();
    if (!source || !target) {
      showError("Give the term and its translation.");
      $(source ? "memory-target" : "memory-source").focus();
      return;
    }
    const kind = /** @type {HTMLSelectElement} */ ($("memory-kind")).value || "preferred";
    /** @type {{source: string, target: string, kind: string, languages?: string}} */
    const entry = { source, target, kind };
    // The session's own language as its task names it ("auto>french", its pair), another as chosen.
    const language = oneLanguage();
    const session = languageKey(language) === languageKey(sessionLanguage()) ? languageFromTitle(state.title) : null;
    if (language) entry.languages = `auto>${session || language}`;
    $("memory-add-button").disabled = true;
    try {
      await api.addGlossary(entry, state.team.project);
      $("memory-source").value = "";
      $("memory-target").value = "";
      /** @type {HTMLSelectElement} */ ($("memory-kind")).value = "preferred";
      $("memory-error").hidden = true;
      $("memory-source").focus();
      await refreshMemory();
    } catch (err) {
      showError(`The term could not be added: ${/** @type {Error} */ (err).message}`);
    } finally {
      $("memory-add-button").disabled = false;
    }
  });
}
