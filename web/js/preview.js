// @ts-check
// Files, progress, downloads and exports, and the source / translation panes.

import { api } from "./api.js";
import { $, h, num, saveBlob, scrollPaneTo } from "./dom.js";
import { state } from "./state.js";
import { showError, setStatus } from "./status.js";
import { unitIndexer } from "./text.js";

/**
 * What the document panes trigger outside themselves (given by `setupDocument`): a tab shown, a file
 * to re-read, a card to focus (a unit in review clicked in the source), the source known (cards then
 * say lines instead of offsets).
 * @typedef {{onTab: (show: string) => void, refreshDocument: (fileId: string | null) => void, focusCard: (index: number) => void, sourceLoaded: () => void}} DocumentActions
 */
/** @type {DocumentActions} */
let actions = { onTab: () => {}, refreshDocument: () => {}, focusCard: () => {}, sourceLoaded: () => {} };

export function allComplete() {
  return state.files.length > 0 && state.files.every((f) => f.progress?.complete);
}

const activeFile = () => state.files.find((f) => f.fileId === state.activeFileId);

/** The file picker, the download link and its menu. */
export function renderFiles() {
  const select = $("file-select");
  $("file-select-wrap").hidden = state.files.length < 2;
  select.replaceChildren(...state.files.map((f) => h("option", { value: f.fileId, text: f.name })));
  if (state.activeFileId) select.value = state.activeFileId;
  const file = activeFile();
  const link = $("download");
  if (file && state.sessionId) {
    // A resource or document file (strings.xml, messages.po, a .docx) downloads in its own format.
    const own = !/\.(md|markdown|txt|text)$/i.test(file.name) && /\.[a-z0-9]+$/i.test(file.name);
    link.href = api.url(own ? api.exportPath(state.sessionId, file.fileId, "original") : api.translationPath(state.sessionId, file.fileId));
    const partial = !file.progress?.complete;
    link.textContent = `${state.files.length > 1 || own ? `Download ${file.name}` : "Download translation"}${partial ? " (incomplete)" : ""}`;
    link.title = partial ? "Untranslated passages are left out; the menu offers the source text in their place." : "";
    $("export").hidden = false;
    const note = $("export-note");
    note.hidden = !partial;
    note.textContent = partial ? `Incomplete: ${untranslatedWords(file)} not translated yet.` : "";
  } else {
    $("export").hidden = true;
  }
}

/** @param {import("./types.js").FileInfo} file */
function untranslatedWords(file) {
  const left = (file.progress?.totalChars ?? file.chars) - (file.progress?.translatedChars ?? 0);
  return `${num.format(left)} ${left === 1 ? "character is" : "characters are"}`;
}

export function renderProgress() {
  let done = 0;
  let total = 0;
  for (const f of state.files) {
    done += f.progress?.translatedChars || 0;
    total += f.progress?.totalChars ?? f.chars ?? 0;
  }
  const pct = total ? Math.floor((done / total) * 100) : 0;
  $("progress-fill").style.width = `${pct}%`;
  const label = `${num.format(done)} / ${num.format(total)} characters · ${pct}%`;
  $("progress-label").textContent = label;
  const bar = $("progress");
  bar.setAttribute("aria-valuenow", String(pct));
  bar.setAttribute("aria-valuetext", label);
  bar.title = state.files.map((f) => `${f.name}: ${num.format(f.progress?.translatedChars || 0)} / ${num.format(f.chars)}`).join("\n");
  bar.classList.toggle("complete", allComplete());
}

/** After a download of an unfinished file, say what it holds. @param {import("./types.js").FileInfo} file @param {boolean} filled */
function sayIncomplete(file, filled) {
  if (file.progress?.complete) return;
  setStatus(
    filled
      ? `Downloaded an incomplete translation: ${untranslatedWords(file)} still in the source language (marked).`
      : `Downloaded an incomplete translation: ${untranslatedWords(file)} not translated and left out.`,
  );
}

/** A download through fetch: a token can be sent, and a failure is said. @param {string} kind */
export async function exportFile(kind) {
  const file = activeFile();
  if (!file || !state.sessionId) return;
  const sid = state.sessionId;
  const path =
    kind === "translation" || kind === "fill"
      ? api.translationPath(sid, file.fileId, { fill: kind === "fill" })
      : kind === "reviewed"
        ? api.exportPath(sid, file.fileId, "original", { reviewed: true })
        : api.exportPath(sid, file.fileId, kind);
  const own = file.name.split(".").pop();
  const ext = { xliff2: "xlf", xliff12: "xlf", tmx: "tmx", original: own, reviewed: own }[kind] || "md";
  try {
    const { blob, name } = await api.download(path, `${file.name}.${ext}`);
    saveBlob(blob, name);
    if (kind === "translation" || kind === "fill") sayIncomplete(file, kind === "fill");
  } catch (err) {
    const e = /** @type {import("./http.js").ApiError} */ (err);
    if (e.status === 404 || e.status === 422) {
      showError(new Error(`This server cannot export ${kind === "fill" ? "with the source text filled in" : kind === "reviewed" ? "the reviewed units alone" : kind.toUpperCase()} yet.`));
    } else showError(e, e.retryable ? () => exportFile(kind) : null);
  }
  $("export-menu").open = false;
}

/** The plain link downloads by itself; say afterwards when it was incomplete. */
export function afterPlainDownload() {
  const file = activeFile();
  if (file) sayIncomplete(file, false);
}

/** Re-read a file: progress, units, translation, and the source once. @param {string | null} fileId @param {{source?: boolean}} [opts] */
export async function refreshPreview(fileId, { source = false } = {}) {
  if (!fileId || !state.sessionId) return;
  const sid = state.sessionId;
  try {
    const [file, units, text] = await Promise.all([
      api.file(sid, fileId),
      api.units(sid, fileId),
      source || !state.sources.has(fileId) ? api.source(sid, fileId) : Promise.resolve(state.sources.get(fileId)),
    ]);
    if (sid !== state.sessionId) return;
    state.sources.set(fileId, String(text));
    state.units.set(fileId, units.units || []);
    state.translations.set(fileId, file.translation ?? "");
    const known = state.files.find((f) => f.fileId === fileId);
    if (known) Object.assign(known, { progress: file.progress, chars: file.chars, name: file.name });
    renderProgress();
    renderFiles();
    if (fileId === state.activeFileId) renderDocument();
    actions.sourceLoaded();
  } catch (err) {
    if (sid !== state.sessionId) return;
    $("translation-pane").replaceChildren(h("p", { class: "hint", text: `The preview could not be loaded: ${/** @type {Error} */ (err).message}` }));
  }
}

export function renderDocument() {
  renderSource();
  renderTranslation();
}

/** @typedef {{start: number, end: number, cls: string, title: string, index?: number}} Mark */

export function renderSource() {
  const pane = $("source-pane");
  const fileId = state.activeFileId;
  const text = fileId ? state.sources.get(fileId) : undefined;
  if (text == null) {
    pane.replaceChildren(h("p", { class: "hint", text: fileId ? "Loading the source…" : "No document in this session." }));
    return;
  }
  const at = unitIndexer(text);
  /** @type {Mark[]} */
  const marks = [];
  for (const u of state.units.get(/** @type {string} */ (fileId)) || []) {
    const edited = u.status === "refined" || u.status === "revised";
    marks.push({ start: at(u.start), end: at(u.end), cls: edited ? "seg-done seg-edited" : "seg-done", title: edited ? "Translated (edited)" : "Translated" });
  }
  state.batch.forEach((item, index) => {
    if (item.req.file_id !== fileId || item.req.tool.name === "Revise") return;
    const start = item.req.start != null ? at(item.req.start) : text.indexOf(item.req.src_string);
    if (start < 0) return;
    const verdict = item.decision ? ` seg-${item.decision.status}` : "";
    marks.push({ start, end: start + item.req.src_string.length, cls: `seg-pending${verdict}`, index, title: `Unit ${index + 1} in review` });
  });
  marks.sort((a, b) => a.start - b.start);
  /** @type {(string | HTMLElement)[]} */
  const out = [];
  let pos = 0;
  for (const m of marks) {
    if (m.start < pos) continue;
    if (m.start > pos) out.push(text.slice(pos, m.start));
    const span = h("span", { class: m.cls, title: m.title, text: text.slice(m.start, m.end), "data-start": m.start });
    if (m.index != null) {
      const index = m.index;
      span.dataset.index = String(index);
      span.addEventListener("click", () => actions.focusCard(index));
    }
    out.push(span);
    pos = m.end;
  }
  if (pos < text.length) out.push(text.slice(pos));
  pane.replaceChildren(...out);
  highlightCurrentInSource();
}

export function highlightCurrentInSource() {
  const pane = $("source-pane");
  for (const el of pane.querySelectorAll(".seg-current")) el.classList.remove("seg-current");
  const span = pane.querySelector(`.seg-pending[data-index="${state.current}"]`);
  if (!span) return;
  span.classList.add("seg-current");
  scrollPaneTo(pane, span);
}

/** Show the source at a code point offset (a jump from the segment list). @param {number} start */
export function showInSource(start) {
  const text = state.activeFileId ? state.sources.get(state.activeFileId) : undefined;
  if (text == null) return;
  const at = unitIndexer(text)(start);
  const spans = [...$("source-pane").querySelectorAll("[data-start]")];
  const span = spans.find((s) => Number(s.dataset.start) === at);
  if (span) scrollPaneTo($("source-pane"), span);
}

function renderTranslation() {
  const pane = $("translation-pane");
  const fileId = state.activeFileId;
  const text = fileId ? state.translations.get(fileId) : undefined;
  if (pane.lang !== (state.lang || "")) pane.lang = state.lang || "";
  if (text == null) {
    pane.replaceChildren(h("p", { class: "hint", text: "Loading the translation…" }));
    return;
  }
  if (!text) {
    pane.replaceChildren(h("p", { class: "hint", text: "Nothing translated yet. Approved units appear here as you go." }));
    return;
  }
  /** @type {(string | HTMLElement)[]} */
  const out = [];
  let pos = 0;
  /** @type {HTMLElement | null} */
  let firstFresh = null;
  for (const u of state.units.get(/** @type {string} */ (fileId)) || []) {
    if (!u.text) continue;
    const at = text.indexOf(u.text, pos);
    if (at < 0) continue;
    if (at > pos) out.push(text.slice(pos, at));
    const fresh = Boolean(u.callId && state.fresh.has(u.callId));
    const edited = u.status === "refined" || u.status === "revised";
    const span = h("span", { class: `seg-done${edited ? " seg-edited" : ""}${fresh ? " seg-fresh" : ""}`, text: u.text });
    if (fresh && !firstFresh) firstFresh = span;
    out.push(span);
    pos = at + u.text.length;
  }
  if (pos < text.length) out.push(text.slice(pos));
  pane.replaceChildren(...out);
  if (firstFresh) scrollPaneTo(pane, firstFresh);
}

/** The file picker, the view tabs and the export menu. @param {DocumentActions} given */
export function setupDocument(given) {
  actions = given;
  $("file-select").addEventListener("change", (/** @type {Event} */ e) => {
    state.activeFileId = /** @type {HTMLSelectElement} */ (e.target).value;
    renderFiles();
    renderDocument();
    actions.refreshDocument(state.activeFileId);
  });
  const tabs = [
    ["tab-segments", "segments"],
    ["tab-both", "both"],
    ["tab-source", "source"],
    ["tab-translation", "translation"],
    ["tab-scorecard", "scorecard"],
  ];
  for (const [id, show] of tabs) {
    $(id).addEventListener("click", () => {
      if (show !== "scorecard") $("panes").dataset.show = show;
      $("panes").hidden = show === "segments" || show === "scorecard";
      $("workbench").hidden = show !== "segments";
      $("scorecard").hidden = show !== "scorecard";
      for (const [other] of tabs) $(other).setAttribute("aria-selected", String(other === id));
      actions.onTab(show);
    });
  }
  /** @type {HTMLElement} */ (document.querySelector(".tabs")).addEventListener("keydown", (e) => {
    if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
    const visible = /** @type {HTMLElement[]} */ ([...document.querySelectorAll(".tabs .tab")]).filter((t) => t.offsetParent !== null);
    const at = visible.indexOf(/** @type {HTMLElement} */ (document.activeElement));
    if (at < 0) return;
    const next = visible[(at + (e.key === "ArrowRight" ? 1 : visible.length - 1)) % visible.length];
    next.focus();
    next.click();
    e.preventDefault();
  });
  // On a narrow window "side by side" is hidden: show the segments instead.
  const narrow = window.matchMedia("(max-width: 999px)");
  const adapt = () => {
    if (narrow.matches && $("panes").dataset.show === "both") $("tab-segments").click();
  };
  narrow.addEventListener("change", adapt);
  $("tab-segments").click();
  adapt();
  for (const item of document.querySelectorAll("[data-export]")) {
    item.addEventListener("click", () => exportFile(/** @type {HTMLElement} */ (item).dataset.export || "translation"));
  }
  document.addEventListener("click", (e) => {
    const menu = $("export-menu");
    if (menu.open && !menu.contains(/** @type {Node} */ (e.target))) menu.open = false;
  });
}
