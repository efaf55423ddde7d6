// @ts-check
// The home screen's list of sessions: paged, refreshed, each deleted after a confirmation.

import { api } from "./api.js";
import { $, confirmDialog, h, num, store } from "./dom.js";
import { state } from "./state.js";
import { clearError, setStatus, showError } from "./status.js";

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
