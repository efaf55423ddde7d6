// @ts-check
// The home screen: the start form (with the character count the server uses) and the session list.

import { api } from "./api.js";
import { $, confirmDialog, h, num, store } from "./dom.js";
import { state } from "./state.js";
import { clearError, setStatus, showError } from "./status.js";
import { codePoints } from "./text.js";

export const LANGUAGES = [
  ["Arabic", "ar"], ["Bengali", "bn"], ["Bulgarian", "bg"], ["Catalan", "ca"], ["Chinese (Simplified)", "zh-Hans"],
  ["Chinese (Traditional)", "zh-Hant"], ["Croatian", "hr"], ["Czech", "cs"], ["Danish", "da"], ["Dutch", "nl"],
  ["English", "en"], ["Estonian", "et"], ["Finnish", "fi"], ["French", "fr"], ["German", "de"], ["Greek", "el"],
  ["Hebrew", "he"], ["Hindi", "hi"], ["Hungarian", "hu"], ["Indonesian", "id"], ["Italian", "it"], ["Japanese", "ja"],
  ["Korean", "ko"], ["Latvian", "lv"], ["Lithuanian", "lt"], ["Malay", "ms"], ["Norwegian", "no"], ["Persian", "fa"],
  ["Polish", "pl"], ["Portuguese (Brazil)", "pt-BR"], ["Portuguese (Portugal)", "pt-PT"], ["Romanian", "ro"],
  ["Russian", "ru"], ["Serbian", "sr"], ["Slovak", "sk"], ["Slovenian", "sl"], ["Spanish", "es"],
  ["Spanish (Latin America)", "es-419"], ["Swahili", "sw"], ["Swedish", "sv"], ["Tagalog", "tl"], ["Thai", "th"],
  ["Turkish", "tr"], ["Ukrainian", "uk"], ["Urdu", "ur"], ["Vietnamese", "vi"],
];

/** The BCP 47 tag of a language name, when known. @param {string | null} name */
export function langTag(name) {
  if (!name) return null;
  const found = LANGUAGES.find(([n]) => n.toLowerCase() === name.trim().toLowerCase());
  return found ? found[1] : null;
}

/** "just now", "5 minutes ago", … @param {string} iso */
export function relativeTime(iso) {
  const then = new Date(iso);
  const secs = (Date.now() - then.getTime()) / 1000;
  if (!Number.isFinite(secs)) return "";
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  if (secs < 60) return "just now";
  if (secs < 3600) return rtf.format(-Math.round(secs / 60), "minute");
  if (secs < 86400) return rtf.format(-Math.round(secs / 3600), "hour");
  if (secs < 86400 * 30) return rtf.format(-Math.round(secs / 86400), "day");
  return then.toLocaleDateString();
}

/** @type {string | null} */
let sessionsCursor = null;

/** @param {boolean} append */
export async function loadSessions(append) {
  const list = $("session-list");
  if (!append) list.dataset.loaded = "false";
  try {
    const page = await api.listSessions(append ? sessionsCursor : null);
    if (!append) list.replaceChildren();
    list.dataset.loaded = "true";
    for (const s of page.sessions) list.append(sessionItem(s));
    sessionsCursor = page.nextCursor;
    $("sessions-more").hidden = !page.nextCursor;
    $("sessions-empty").hidden = list.children.length > 0;
  } catch (err) {
    showError(err, () => {
      clearError();
      loadSessions(append);
    });
  }
}

/** @param {{id: string, title?: string, updatedAt: string, copilotResponseCount: number, messageCount: number}} s */
function sessionItem(s) {
  // The list's title is the first input cut at 80 characters; the full one is kept locally when known.
  const cut = s.title && s.title.length >= 80 ? `${s.title.trimEnd()}…` : s.title;
  const title = store.get(`title:${s.id}`) || cut || "Untitled session";
  const parsed = /^Translate (.+?) into (.+?)\.(?:\s+Instructions:\s*([\s\S]*))?$/.exec(title);
  const name = parsed ? `${parsed[1]} → ${parsed[2]}` : title;
  const note = parsed ? parsed[3] || "" : "";
  return h(
    "li",
    { class: "session-item", "data-session-id": s.id },
    h(
      "a",
      { class: "session-link", href: `#${s.id}` },
      h("span", { class: "session-name", text: name }),
      note ? h("span", { class: "session-note", text: note }) : null,
      h(
        "span",
        { class: "session-meta" },
        h("time", { datetime: s.updatedAt, title: new Date(s.updatedAt).toLocaleString(), text: relativeTime(s.updatedAt) }),
        ` · ${num.format(s.copilotResponseCount)} reviewed · ${num.format(s.messageCount)} messages`,
      ),
    ),
    h("button", {
      type: "button",
      class: "button button-quiet button-small",
      "aria-label": `Delete session “${title}”`,
      text: "Delete",
      onclick: () => deleteSession(s.id, title),
    }),
  );
}

/** @param {string} id @param {string} title */
export async function deleteSession(id, title) {
  const ok = await confirmDialog(`“${title}” and its translation will be deleted from the server. This cannot be undone.`);
  if (!ok) return;
  try {
    await api.deleteSession(id);
    store.set(`title:${id}`, null);
    store.set(`verdicts:${id}`, null);
    if (state.sessionId === id) {
      location.hash = "";
      return;
    }
    $("session-list").querySelector(`[data-session-id="${id}"]`)?.remove();
    $("sessions-empty").hidden = $("session-list").children.length > 0;
    setStatus("Session deleted.");
  } catch (err) {
    const e = /** @type {any} */ (err);
    showError(e, e.retryable ? () => (clearError(), deleteSession(id, title)) : null);
  }
}

/** Empty the start form once its document is uploaded (the language stays): back home, it offers a new one, not the same again. */
export function clearStartForm() {
  for (const id of ["doc-text", "doc-file", "instructions"]) $(id).value = "";
  $("doc-name").value = "document.md";
  $("doc-stats").textContent = "";
}

/** The start form: file, drop, paste, counts; `start` runs on submit or Ctrl+Enter. @param {() => void} start @param {() => void} onInput */
export function setupStartForm(start, onInput) {
  const datalist = $("languages");
  for (const [name] of LANGUAGES) datalist.append(h("option", { value: name }));
  const text = $("doc-text");
  const stats = () => {
    // Code points, as the server counts (an emoji is one character, not two UTF-16 units).
    const n = codePoints(text.value);
    $("doc-stats").textContent = n ? `${num.format(n)} ${n === 1 ? "character" : "characters"}` : "";
  };
  /** @param {File | undefined} file */
  const load = async (file) => {
    if (!file) return;
    text.value = await file.text();
    $("doc-name").value = file.name;
    stats();
  };
  $("doc-file").addEventListener("change", (/** @type {Event} */ e) => load(/** @type {HTMLInputElement} */ (e.target).files?.[0]));
  text.addEventListener("input", stats);
  text.addEventListener("dragover", (/** @type {DragEvent} */ e) => {
    e.preventDefault();
    text.classList.add("drop");
  });
  text.addEventListener("dragleave", () => text.classList.remove("drop"));
  text.addEventListener("drop", (/** @type {DragEvent} */ e) => {
    e.preventDefault();
    text.classList.remove("drop");
    load(e.dataTransfer?.files[0]);
  });
  const form = $("start-form");
  form.addEventListener("submit", (/** @type {Event} */ e) => {
    e.preventDefault();
    start();
  });
  form.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      start();
    }
  });
  form.addEventListener("input", () => {
    $("start-error").hidden = true;
    onInput();
  });
}
