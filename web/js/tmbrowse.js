// @ts-check
// The memory panel's translation memory (GET …/memory/tm?language=&q=&cursor=&limit=): one target
// language's entries, most recently changed first, "More" for the next page, a filter by text, each
// entry's translation edited in place (Enter saves, Shift+Enter a new line, Esc cancels: PUT …/tm/{id})
// or deleted after a confirmation that says it cannot be undone (DELETE …/tm/{id}). The list is read
// when the section is opened, and again when the language or the filter changes.

import { api } from "./api.js";
import { $, autosize, h, num } from "./dom.js";
import { languageLabel } from "./memorylang.js";
import { appendPage, editProblem, emptyText, entryMeta, PAGE_SIZE, removeEntry, replaceEntry } from "./tmmodel.js";

/** @typedef {import("./tmmodel.js").TmEntry} TmEntry */

/**
 * What the list reads from the panel (given by `setupTm`): the one language browsed, its tag for the
 * texts' `lang`, and the project whose memory it is.
 * @typedef {{language: () => string | null, lang: () => string | null, project: () => string | null}} Where
 */

/** @type {Where} */
let where = { language: () => null, lang: () => null, project: () => null };

/** @type {{entries: TmEntry[], cursor: string | null, loaded: boolean, language: string | null, q: string, project: string | null}} */
const shown = { entries: [], cursor: null, loaded: false, language: null, q: "", project: null };

/** What the list is asked for now: the language, the text typed and the project. */
const asked = () => ({ language: where.language(), q: /** @type {HTMLInputElement} */ ($("memory-tm-q")).value.trim(), project: where.project() });

/** Whether the list shows something else than what is asked now. */
const moved = () => {
  const now = asked();
  return now.language !== shown.language || now.q !== shown.q || now.project !== shown.project;
};

let token = 0;

/** @param {string} text */
const say = (text) => ($("memory-tm-status").textContent = text);

/** @param {unknown} err @param {string} doing */
function failure(err, doing) {
  const e = /** @type {any} */ (err);
  if (e.status === 404 && doing !== "read") return "This entry is gone already (deleted elsewhere); the list is read again.";
  if (e.status === 404 || e.status === 405) return "This server cannot browse the translation memory yet.";
  return `The translation memory could not be ${doing}: ${e.detail || e.message}`;
}

/** Whether an edit or a confirmation is open (a refresh would throw it away). */
const busy = () => Boolean($("memory-tm").querySelector(".tm-edit-form, .tm-confirm"));

function render() {
  const label = languageLabel(shown.language);
  // The focus stays on the entry's button it was on when the list is drawn again.
  const active = /** @type {HTMLElement | null} */ (document.activeElement);
  const at = active?.closest?.(".tm-item")?.getAttribute("data-entry-id") ?? null;
  const which = active?.classList.contains("memory-delete") ? ".memory-delete" : ".memory-edit";
  $("memory-tm").replaceChildren(...shown.entries.map(item));
  if (at && document.querySelector(`.tm-item[data-entry-id="${CSS.escape(at)}"]`)) focusEntry(at, which);
  $("memory-tm-empty").hidden = !(shown.loaded && !shown.entries.length);
  $("memory-tm-empty").textContent = emptyText(shown.q, label);
  $("memory-tm-more").hidden = !shown.cursor;
  const n = shown.entries.length;
  $("memory-tm-count").textContent = shown.loaded ? `(${label}: ${num.format(n)}${shown.cursor ? "+" : ""} ${n === 1 && !shown.cursor ? "entry" : "entries"})` : `(${label})`;
}

/** @param {TmEntry} entry */
function item(entry) {
  const li = h(
    "li",
    { class: "memory-item tm-item", "data-entry-id": entry.id },
    h(
      "span",
      { class: "memory-text" },
      h("span", { class: "tm-source", dir: "auto", text: entry.source }),
      h("span", { class: "memory-arrow", "aria-label": "translated as", text: " → " }),
      h("span", { class: "tm-target", lang: where.lang(), dir: "auto", text: entry.target }),
    ),
    h("span", { class: "memory-meta", text: entryMeta(entry) }),
    h("button", { type: "button", class: "button button-quiet button-small memory-edit", "aria-label": `Edit the translation of “${entry.source}”`, text: "Edit", onclick: () => openEditor(li, entry) }),
    h("button", { type: "button", class: "button button-quiet button-small memory-delete", "aria-label": `Delete the entry “${entry.source}”`, text: "Delete", onclick: () => confirmDelete(li, entry) }),
  );
  // Keys typed in the list are its own: never a review shortcut (A approves a card).
  li.addEventListener("keydown", (e) => {
    if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) e.stopPropagation();
  });
  return li;
}

/** Focus an entry's button, else the filter box. @param {string | null} id @param {string} [which] */
function focusEntry(id, which = ".memory-edit") {
  const el = id ? document.querySelector(`.tm-item[data-entry-id="${CSS.escape(id)}"] ${which}`) : null;
  /** @type {HTMLElement} */ (el || $("memory-tm-q")).focus({ preventScroll: Boolean(el) });
}

/** The entry's translation in an edit box in place of its line. @param {HTMLElement} li @param {TmEntry} entry */
function openEditor(li, entry) {
  const box = /** @type {HTMLTextAreaElement} */ (
    h("textarea", { class: "memory-edit-field tm-edit-target", rows: "1", lang: where.lang(), dir: "auto", "aria-label": `Translation of “${entry.source}”` })
  );
  box.value = entry.target;
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "tm-edit-form", "aria-label": `Edit the translation of “${entry.source}”` },
      h("span", { class: "tm-source", dir: "auto", text: entry.source }),
      box,
      h("button", { type: "submit", class: "button button-primary button-small", text: "Save" }),
      h("button", { type: "button", class: "button button-quiet button-small tm-edit-cancel", text: "Cancel", onclick: () => close() }),
      h("span", { class: "hint", text: "Enter saves · Shift+Enter a new line · Esc cancels" }),
    )
  );
  const kept = [...li.children];
  const close = () => {
    form.replaceWith(...kept);
    focusEntry(entry.id);
  };
  li.replaceChildren(form);
  autosize(box);
  box.focus();
  box.select();
  box.addEventListener("input", () => autosize(box));
  box.addEventListener("keydown", (e) => {
    if (e.isComposing) return;
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      close();
    } else if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const text = box.value;
    const problem = editProblem(text);
    if (problem) return say(problem);
    if (text === entry.target) return close();
    try {
      const saved = await api.updateTm(entry.id, text, where.project());
      shown.entries = replaceEntry(shown.entries, { ...entry, ...saved });
      render();
      say(`Saved: “${entry.source}” → “${saved.target ?? text}”`);
      focusEntry(entry.id);
    } catch (err) {
      say(failure(err, "saved"));
      if (/** @type {any} */ (err).status === 404) loadTm();
    }
  });
}

/** Ask, in the entry's line, before deleting it: deleting cannot be undone. @param {HTMLElement} li @param {TmEntry} entry */
function confirmDelete(li, entry) {
  const kept = [...li.children];
  const keep = () => {
    box.replaceWith(...kept);
    focusEntry(entry.id, ".memory-delete");
  };
  const box = h(
    "div",
    { class: "tm-confirm", role: "group", "aria-label": `Delete the entry “${entry.source}”?` },
    h("p", { class: "tm-confirm-text", text: `Delete “${entry.source}” → “${entry.target}”? This cannot be undone: later proposals, searches and exports will not find it.` }),
    h("button", { type: "button", class: "button button-danger button-small tm-confirm-delete", text: "Delete", onclick: () => remove(entry) }),
    h("button", { type: "button", class: "button button-quiet button-small tm-confirm-keep", text: "Keep it", onclick: keep }),
  );
  box.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    e.preventDefault();
    e.stopPropagation();
    keep();
  });
  li.replaceChildren(box);
  /** @type {HTMLElement} */ (box.querySelector(".tm-confirm-keep")).focus();
}

/** @param {TmEntry} entry */
async function remove(entry) {
  const at = shown.entries.findIndex((e) => e.id === entry.id);
  try {
    await api.deleteTm(entry.id, where.project());
  } catch (err) {
    if (/** @type {any} */ (err).status !== 404) {
      say(failure(err, "changed"));
      return;
    }
  }
  shown.entries = removeEntry(shown.entries, entry.id);
  render();
  say(`Deleted: “${entry.source}” → “${entry.target}”`);
  focusEntry((shown.entries[at] || shown.entries[at - 1])?.id ?? null);
}

/** Read the first page again (the language, the filter or the memory changed). */
export async function loadTm() {
  const now = asked();
  const { language, q, project } = now;
  const mine = ++token;
  // The same list read again stays on screen until the new one comes; another one is cleared first.
  if (moved() || !language) Object.assign(shown, { entries: [], cursor: null, loaded: false, ...now });
  if (!language) {
    render();
    $("memory-tm-empty").hidden = false;
    $("memory-tm-empty").textContent = "Choose one language above to browse its translation memory.";
    return;
  }
  render();
  try {
    const page = await api.tm({ language, q, limit: PAGE_SIZE }, project);
    if (mine !== token) return;
    Object.assign(shown, { entries: appendPage([], page), cursor: page.nextCursor || null, loaded: true, ...now });
    if (!busy()) say("");
  } catch (err) {
    if (mine !== token) return;
    say(failure(err, "read"));
  }
  render();
}

async function more() {
  const mine = token;
  const cursor = shown.cursor;
  if (!cursor || !shown.language) return;
  const before = shown.entries.length;
  try {
    const page = await api.tm({ language: shown.language, q: shown.q, cursor, limit: PAGE_SIZE }, where.project());
    if (mine !== token) return;
    Object.assign(shown, { entries: appendPage(shown.entries, page), cursor: page.nextCursor || null });
    render();
    const added = shown.entries.length - before;
    say(`${num.format(added)} more ${added === 1 ? "entry" : "entries"}.`);
    focusEntry(shown.entries[before]?.id ?? null);
  } catch (err) {
    if (mine === token) say(failure(err, "read"));
  }
}

/** Read the list again if it is open and nothing is being edited (after a step, the language chosen). @param {{force?: boolean}} [opts] */
export function refreshTm({ force = false } = {}) {
  const open = /** @type {HTMLDetailsElement} */ ($("memory-tm-section")).open;
  if (!open) {
    token++;
    Object.assign(shown, { entries: [], cursor: null, loaded: false, ...asked() });
    render();
    return;
  }
  // After a step, only a first page untouched is read again: the pages the reviewer asked stay.
  if (!force && !moved() && (busy() || shown.entries.length > PAGE_SIZE)) return;
  loadTm();
}

/** Wire the section. @param {Where} w */
export function setupTm(w) {
  where = w;
  const section = /** @type {HTMLDetailsElement} */ ($("memory-tm-section"));
  section.addEventListener("toggle", () => {
    if (section.open && (!shown.loaded || moved())) loadTm();
  });
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let typing;
  $("memory-tm-q").addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(loadTm, 300);
  });
  $("memory-tm-filter").addEventListener("submit", (/** @type {Event} */ e) => {
    e.preventDefault();
    clearTimeout(typing);
    loadTm();
  });
  $("memory-tm-more").addEventListener("click", more);
}
