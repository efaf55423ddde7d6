// @ts-check
// The session screen and what it shows between steps: entering a session (its title, files, history,
// queue and document), the server's view adopted (after a reload, a conflict or a settings change),
// the waiting, idle and queued states, and the document's panes refreshed together.

import { clearBatch, focusCard, showBatch } from "./cards.js";
import { queuedText } from "./client.js";
import { $, autosize, h, store } from "./dom.js";
import { showAutoApprove } from "./autoapprove.js";
import { clearHold } from "./hold.js";
import { leaveJob, showJobLink } from "./jobs.js";
import { languageFromTitle, refreshMemory } from "./memory.js";
import { firstUserInput, nextActor } from "./messages.js";
import { allComplete, refreshPreview, renderDocument, renderFiles, renderProgress } from "./preview.js";
import { refreshScorecard } from "./scorecard.js";
import { refreshSegments } from "./segments.js";
import { showSourceLanguage } from "./sourcelang.js";
import { langTag } from "./startlangs.js";
import { state } from "./state.js";
import { setPhase, setStatus } from "./status.js";
import { renderTimeline } from "./timeline.js";

/** @typedef {import("./types.js").SessionView} SessionView */

/**
 * Show session `id` with what is known of it (a new session's upload, or the server's view).
 * @param {string} id
 * @param {{title: string | null, files: any[], messages: any[], messageCount?: number, messagesComplete?: boolean, queued?: string[]}} data
 */
export function enterSession(id, { title, files, messages, messageCount, messagesComplete = true, queued = [] }) {
  Object.assign(state, {
    view: "session",
    sessionId: id,
    title: title || null,
    lang: langTag(languageFromTitle(title)),
    files: files || [],
    sources: new Map(),
    units: new Map(),
    translations: new Map(),
    fresh: new Set(),
    batch: [],
    messages: messages || [],
    localInputs: new Set(),
    queued,
    stoppedCall: null,
    messageCount: messageCount ?? (messages || []).length,
    messagesComplete,
    segments: { segments: [], server: true, fileId: null },
  });
  state.activeFileId = state.files[0]?.fileId || null;
  leaveJob();
  showJobLink(id);
  clearHold();
  for (const [el, hidden] of /** @type {const} */ ([["view-home", true], ["view-session", false], ["topbar-session", false], ["shortcuts", false], ["continue", true], ["idle", true], ["approve-all", true], ["send-verdicts", true]])) {
    $(el).hidden = hidden;
  }
  $("cards").replaceChildren();
  $("review-count").textContent = "";
  $("seglist").replaceChildren();
  showSourceLanguage(null);
  showAutoApprove(null);
  renderTitle();
  renderFiles();
  renderProgress();
  renderTimeline();
  renderQueued();
  renderDocument();
  refreshMemory();
}

/** Enter a session from the server's view of it. @param {string} id @param {SessionView} data */
export function enterFromView(id, data) {
  enterSession(id, {
    title: store.get(`title:${id}`) || firstUserInput(data.messages),
    files: data.files,
    messages: data.messages,
    messageCount: data.messageCount ?? data.messages.length,
    messagesComplete: data.messagesComplete !== false,
    queued: (data.queuedInputs || []).map(queuedText),
  });
  showSourceLanguage(data);
  showAutoApprove(data);
  restore(data);
  refreshDocument(state.activeFileId, { source: true });
}

function renderTitle() {
  const file = state.files[0];
  const language = languageFromTitle(state.title);
  const text = file && language ? `${file.name} → ${language}` : state.title || file?.name || "Session";
  $("session-title").textContent = text;
  $("session-title").title = state.title || "";
  document.title = `${text} · Translation review`;
}

/**
 * Show what the server says is current: pending cards (kept as they are when the screen shows the
 * same ones), or the waiting or idle state.
 * @param {SessionView} data
 */
export function restore(data) {
  state.files = data.files || state.files;
  renderFiles();
  renderProgress();
  const pending = data.pendingCopilotRequests || [];
  if (pending.length) {
    state.actor = "user";
    const shown = state.batch.map((b) => b.req.tool.callId).join(" ");
    if (shown !== pending.map((r) => r.tool.callId).join(" ")) showBatch(pending, { autoSend: false });
    return;
  }
  if (state.batch.length) clearBatch();
  state.actor = data.actor || nextActor(state.messages);
  if (state.actor === "agent") showWaiting();
  else showIdle();
}

/** The server's view after a conflict or a settings change: history, files and queue as stored. @param {SessionView} view */
export function adoptView(view) {
  state.messages = view.messages;
  state.localInputs = new Set();
  state.messageCount = view.messageCount ?? view.messages.length;
  state.messagesComplete = view.messagesComplete !== false;
  state.files = view.files || state.files;
  state.queued = (view.queuedInputs || []).map(queuedText);
  showSourceLanguage(view);
  showAutoApprove(view);
  renderTimeline();
  renderQueued();
  renderFiles();
  renderProgress();
}

/** The agent has the turn: working, or (not busy, e.g. after a reload) paused until Continue. */
export function showWaiting() {
  $("cards").replaceChildren(
    h("div", { class: "placeholder" }, h("span", { class: "spinner", "aria-hidden": "true" }), " The agent is preparing the next units…"),
  );
  $("idle").hidden = true;
  $("approve-all").hidden = true;
  $("review-count").textContent = "";
  if (!state.busy) {
    $("cards").replaceChildren(h("p", { class: "placeholder", text: "The agent has more work to do on this session." }));
    setPhase("stopped");
    setStatus("Paused: the agent has the turn. Continue when you are ready.");
    $("continue").hidden = false;
  }
}

/** The human has the turn: nothing to review, the translation complete or the agent's question. */
export function showIdle() {
  $("cards").replaceChildren();
  $("approve-all").hidden = true;
  $("send-verdicts").hidden = true;
  $("review-count").textContent = "";
  $("idle").hidden = false;
  $("continue").hidden = true;
  const done = allComplete();
  setPhase(done ? "done" : "idle");
  if (!state.files.length) {
    $("idle-text").textContent = "This session has no document yet.";
    setStatus("Waiting for you.");
  } else if (done) {
    $("idle-text").replaceChildren(
      h("strong", { text: "Translation complete. " }),
      state.team.review === "pretranslate"
        ? "The model pre-translated the whole document. Review it in the segment list's Review queue, in any order (sort by estimate to work the riskiest first); “Download reviewed only” holds what you passed."
        : state.team.review === "double"
        ? "Every part of the document is translated; a reviewer passes what translators did (the segment list's Review queue). Download it, revise any segment in the list, or ask the agent for changes."
        : "Every part of the document has been reviewed. Download it, revise any segment in the list, or ask the agent for changes.",
    );
    setStatus("Translation complete.");
  } else {
    $("idle-text").textContent = "The agent is waiting for you: read its message below, then reply.";
    setStatus("Waiting for your reply.");
  }
  if (state.view === "session" && !document.activeElement?.closest?.("dialog")) {
    (done ? $("download") : $("composer-text")).focus({ preventScroll: true });
  }
}

/** The human's input waits behind the reviews on screen. @param {string} input */
export function showQueuedOutcome(input) {
  if (!state.queued.includes(input)) state.queued.push(input);
  renderQueued();
  setPhase(state.batch.length ? "review" : "idle");
  setStatus("Message queued: the agent reads it with your verdicts on this batch.");
  if (state.batch.length) focusCard(state.current);
}

export function renderQueued() {
  const list = $("queued");
  list.replaceChildren(
    ...state.queued.map((q) => h("li", { class: "queued-item" }, h("span", { class: "queued-label", text: "Queued" }), h("span", { dir: "auto", text: q }))),
  );
  list.hidden = state.queued.length === 0;
}

/** Re-read a file's preview, and for the file shown its segments and scorecard. @param {string | null} fileId @param {{source?: boolean}} [opts] */
export async function refreshDocument(fileId, opts = {}) {
  await refreshPreview(fileId, opts);
  if (fileId === state.activeFileId) {
    refreshSegments();
    refreshScorecard();
  }
}

/** The message box: Ctrl+Enter or Send hands its text to `send` (not while a step runs). @param {(text: string) => void} send */
export function setupComposer(send) {
  const ta = $("composer-text");
  const go = () => {
    const text = ta.value.trim();
    if (!text) return;
    if (state.busy) {
      setStatus("Wait for the agent's step to finish, then send your message.");
      return;
    }
    ta.value = "";
    autosize(ta);
    if (!state.batch.length) $("idle").hidden = true;
    send(text);
  };
  $("composer").addEventListener("submit", (/** @type {Event} */ e) => {
    e.preventDefault();
    go();
  });
  ta.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      go();
    } else if (e.key === "Escape") ta.blur();
  });
  ta.addEventListener("input", () => autosize(ta));
}
