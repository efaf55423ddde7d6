// @ts-check
// The home screen's list of sessions: paged, refreshed, each deleted after a confirmation.

import { api } from "./api.js";
import { $, confirmDialog, h, num, store } from "./dom.js";
import { languageName } from "./jobmodel.js";
import { chosen, leaveProject } from "./projects.js";
import { state } from "./state.js";
import { projectSessionLine } from "./teams.js";
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
    const project = chosen();
    const cursor = append ? sessionsCursor : null;
    const page = project ? await api.projectSessions(project.id, cursor) : await api.listSessions(cursor);
    if (project?.id !== chosen()?.id) return; // the workspace changed meanwhile
    if (!append) list.replaceChildren();
    list.dataset.loaded = "true";
    for (const s of page.sessions) list.append(project ? projectItem(s, project.role === "manager") : sessionItem(s));
    sessionsCursor = page.nextCursor;
    $("sessions-more").hidden = !page.nextCursor;
    $("sessions-empty").hidden = list.children.length > 0;
  } catch (err) {
    const gone = /** @type {any} */ (err).status === 404 && chosen();
    if (gone) {
      // Not a member any more (or the project is gone): the workspace goes back to Personal.
      leaveProject();
      setStatus(`You are no longer a member of ${gone.name}: showing your own sessions.`);
      loadSessions(false);
      return;
    }
    showError(err, () => {
      clearError();
      loadSessions(append);
    });
  }
}

const clock = new Intl.DateTimeFormat(undefined, { timeStyle: "short" });

/**
 * A project's session: its language, where it stands, who holds it (while the list says), and for
 * its manager the Delete button.
 * @param {any} s @param {boolean} manager
 */
function projectItem(s, manager) {
  const line = projectSessionLine(s, { now: Date.now(), name: languageName, time: (d) => clock.format(d) });
  const title = store.get(`title:${s.id}`);
  const parsed = title ? /^Translate (.+?) into (.+?)\./.exec(title) : null;
  const name = parsed ? `${parsed[1]} → ${line.language}` : `→ ${line.language}`;
  return h(
    "li",
    { class: "session-item", "data-session-id": s.id },
    h(
      "a",
      { class: "session-link", href: `#${s.id}` },
      h("span", { class: "session-name", text: name }),
      h(
        "span",
        { class: "session-meta" },
        h("time", { datetime: s.updatedAt, title: new Date(s.updatedAt).toLocaleString(), text: relativeTime(s.updatedAt) }),
        ` · ${line.where} · ${num.format(s.messageCount ?? 0)} messages`,
      ),
      line.held ? h("span", { class: "session-held", text: line.held }) : null,
    ),
    manager
      ? h("button", {
          type: "button",
          class: "button button-quiet button-small",
          "aria-label": `Delete session “${name}”`,
          text: "Delete",
          onclick: () => deleteSession(s.id, name),
        })
      : null,
  );
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
