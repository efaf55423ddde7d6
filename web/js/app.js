// The reviewer's UI: start a translation, drive the agent loop, review proposals card by card.

import { api, ApiError, newKey } from "./api.js";
import { signInRequired, startAuth } from "./auth.js";
import { diffStats, diffWords, renderDiff } from "./diff.js";
import { firstUserInput, nextActor, timelineEntries } from "./messages.js";

const $ = (id) => document.getElementById(id);
const num = new Intl.NumberFormat();

const LANGUAGES = [
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
const REJECT_REASONS = ["Mistranslation", "Wrong terminology", "Omission or addition", "Tone or register", "Broken formatting"];

const state = {
  view: null, // "home" | "session"
  sessionId: null,
  title: null,
  lang: null, // BCP 47 tag of the target language, when known
  files: [], // [{fileId, name, chars, progress}]
  activeFileId: null,
  sources: new Map(), // fileId → source text
  units: new Map(), // fileId → [{start, end, text, status, callId}]
  translations: new Map(), // fileId → assembled translation
  fresh: new Set(), // callIds written by the latest verdicts (highlighted in the preview)
  batch: [], // [{req, decision, mode, el}]
  current: 0,
  busy: false,
  controller: null,
  actor: null,
  messages: [],
  messageCount: 0,
  messagesComplete: true,
  localInputs: new Set(), // user inputs shown locally, not (yet) echoed by the server
  startDraft: null,
  stoppedCall: null, // the request the Stop button aborted
  sessionsCursor: null,
  loadToken: 0,
};

/* ---------- small helpers ---------- */

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v == null) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c != null && c !== false) el.append(c);
  return el;
}

function kbd(...keys) {
  const out = [];
  keys.forEach((k, i) => {
    if (i) out.push("+");
    out.push(h("kbd", { text: k }));
  });
  return h("span", { class: "keys", "aria-hidden": "true" }, out);
}

function langTag(name) {
  if (!name) return null;
  const found = LANGUAGES.find(([n]) => n.toLowerCase() === name.trim().toLowerCase());
  return found ? found[1] : null;
}

function languageFromTitle(title) {
  const m = /\binto (.+?)\.(?:\s|$)/.exec(title || "");
  return m ? m[1] : null;
}

function relativeTime(iso) {
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

/**
 * The server counts positions in code points (Python); JavaScript strings index UTF-16 units. For a
 * text with characters outside the BMP (emoji…), map code point offsets to string indexes.
 */
function unitIndexer(text) {
  if (!/[\uD800-\uDFFF]/.test(text)) return (cp) => cp;
  const map = [];
  let i = 0;
  for (const ch of text) {
    map.push(i);
    i += ch.length;
  }
  map.push(i);
  return (cp) => map[Math.min(Math.max(cp, 0), map.length - 1)];
}

function lineOf(text, offset) {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

function autosize(textarea) {
  textarea.style.height = "auto";
  textarea.style.height = `${Math.min(textarea.scrollHeight + 2, window.innerHeight * 0.6)}px`;
}

const store = {
  get(key, fallback = null) {
    try {
      const v = localStorage.getItem(key);
      return v == null ? fallback : JSON.parse(v);
    } catch {
      return fallback;
    }
  },
  set(key, value) {
    try {
      if (value == null) localStorage.removeItem(key);
      else localStorage.setItem(key, JSON.stringify(value));
    } catch {
      /* storage full or disabled: the UI works without it */
    }
  },
};

/* ---------- status, phase, errors ---------- */

function setPhase(phase) {
  document.body.dataset.phase = phase;
}

function setStatus(text, { spinner = false } = {}) {
  const status = $("status");
  status.replaceChildren();
  if (spinner) status.append(h("span", { class: "spinner", "aria-hidden": "true" }));
  status.append(h("span", { text }));
  status.dataset.empty = text ? "" : "true";
  syncStatusbar();
}

/** On the home screen the status strip shows only when it has something to say. */
function syncStatusbar() {
  const quiet = $("status").dataset.empty === "true" && $("stop").hidden && $("continue").hidden;
  $("statusbar").classList.toggle("statusbar-quiet", quiet && state.view !== "session");
}

let retryAction = null;

function showError(err, retry = null) {
  const box = $("error");
  $("error-text").textContent = err instanceof ApiError || err instanceof Error ? err.message : String(err);
  if (err instanceof ApiError && err.retryAfter && err.status === 503) {
    $("error-text").textContent += ` You can retry in about ${err.retryAfter} s.`;
  }
  retryAction = retry;
  $("error-retry").hidden = !retry;
  box.hidden = false;
  if (retry) $("error-retry").focus({ preventScroll: true });
}

function clearError() {
  $("error").hidden = true;
  retryAction = null;
}

function setBusy(busy) {
  state.busy = busy;
  $("stop").hidden = !busy;
  syncStatusbar();
  document.body.classList.toggle("busy", busy);
  for (const b of document.querySelectorAll(".card-actions button, #approve-all, #composer-send")) b.disabled = busy;
}

/* ---------- routing ---------- */

function hashSession() {
  const m = /^#(s_[A-Za-z0-9_-]+)$/.exec(location.hash);
  return m ? m[1] : null;
}

function route() {
  const id = hashSession();
  if (id) {
    if (id !== state.sessionId || state.view !== "session") openSession(id);
  } else if (state.view !== "home") {
    showHome();
  }
}

function stopLoop() {
  if (state.controller) state.controller.abort();
}

/* ---------- home: start and sessions ---------- */

function showHome() {
  stopLoop();
  state.view = "home";
  state.sessionId = null;
  state.loadToken++;
  clearError();
  $("view-home").hidden = false;
  $("view-session").hidden = true;
  $("topbar-session").hidden = true;
  $("continue").hidden = true;
  $("shortcuts").hidden = true;
  document.title = "Translation review";
  setPhase("home");
  setStatus("");
  loadSessions(false);
  const lang = $("target-lang");
  if (!lang.value) lang.value = store.get("lastLanguage", "") || "";
}

async function loadSessions(append) {
  const list = $("session-list");
  if (!append) list.dataset.loaded = "false";
  try {
    const page = await api.listSessions(append ? state.sessionsCursor : null);
    if (!append) list.replaceChildren();
    list.dataset.loaded = "true";
    for (const s of page.sessions) list.append(sessionItem(s));
    state.sessionsCursor = page.nextCursor;
    $("sessions-more").hidden = !page.nextCursor;
    $("sessions-empty").hidden = list.children.length > 0;
  } catch (err) {
    showError(err, () => {
      clearError();
      loadSessions(append);
    });
  }
}

function sessionItem(s) {
  // The list's title is the first input cut at 80 characters; the full one is kept locally when known.
  const cut = s.title && s.title.length >= 80 ? `${s.title.trimEnd()}…` : s.title;
  const title = store.get(`title:${s.id}`) || cut || "Untitled session";
  const parsed = /^Translate (.+?) into (.+?)\.(?:\s+Instructions:\s*([\s\S]*))?$/.exec(title);
  const name = parsed ? `${parsed[1]} → ${parsed[2]}` : title;
  const note = parsed ? parsed[3] || "" : "";
  const updated = new Date(s.updatedAt);
  const item = h(
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
        h("time", { datetime: s.updatedAt, title: updated.toLocaleString(), text: relativeTime(s.updatedAt) }),
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
  return item;
}

function confirmDialog(text) {
  const dialog = $("confirm");
  $("confirm-text").textContent = text;
  return new Promise((resolve) => {
    dialog.returnValue = "";
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
    dialog.showModal();
  });
}

async function deleteSession(id, title) {
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
    showError(err, err.retryable ? () => (clearError(), deleteSession(id, title)) : null);
  }
}

function setupStartForm() {
  const datalist = $("languages");
  for (const [name] of LANGUAGES) datalist.append(h("option", { value: name }));
  const text = $("doc-text");
  const stats = () => {
    const n = text.value.length;
    $("doc-stats").textContent = n ? `${num.format(n)} characters` : "";
  };
  const load = async (file) => {
    if (!file) return;
    text.value = await file.text();
    $("doc-name").value = file.name;
    stats();
  };
  $("doc-file").addEventListener("change", (e) => load(e.target.files[0]));
  text.addEventListener("input", stats);
  text.addEventListener("dragover", (e) => {
    e.preventDefault();
    text.classList.add("drop");
  });
  text.addEventListener("dragleave", () => text.classList.remove("drop"));
  text.addEventListener("drop", (e) => {
    e.preventDefault();
    text.classList.remove("drop");
    load(e.dataTransfer.files[0]);
  });
  const form = $("start-form");
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    startTranslation();
  });
  form.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      startTranslation();
    }
  });
  form.addEventListener("input", () => {
    $("start-error").hidden = true;
    if (state.startDraft && !state.startDraft.fileId) state.startDraft.dirty = true;
  });
}

async function startTranslation() {
  if (state.busy) return;
  const content = $("doc-text").value;
  const name = $("doc-name").value.trim();
  const language = $("target-lang").value.trim();
  const instructions = $("instructions").value.trim();
  const problem = !content.trim()
    ? ["doc-text", "Add a document: upload a file or paste its text."]
    : !name
      ? ["doc-name", "Give the document a file name, e.g. guide.md."]
      : !language
        ? ["target-lang", "Choose the language to translate into."]
        : null;
  if (problem) {
    $("start-error").textContent = problem[1];
    $("start-error").hidden = false;
    $(problem[0]).focus();
    return;
  }
  const userInput = `Translate ${name} into ${language}.${instructions ? ` Instructions: ${instructions}` : ""}`;
  store.set("lastLanguage", language);
  // A retry reuses what already succeeded: the session, and the upload if the text is unchanged.
  let draft = state.startDraft;
  if (!draft || draft.content !== content || draft.name !== name) {
    draft = { sessionId: draft && !draft.fileId ? draft.sessionId : null, content, name };
  }
  draft.userInput = userInput;
  state.startDraft = draft;
  clearError();
  setBusy(true);
  setStatus("Uploading the document…", { spinner: true });
  try {
    if (!draft.sessionId) draft.sessionId = (await api.createSession()).id;
    if (!draft.fileId) draft.file = await api.upload(draft.sessionId, name, content);
    draft.fileId = draft.file.fileId;
  } catch (err) {
    setBusy(false);
    setStatus("");
    showError(err, err.retryable ? () => startTranslation() : null);
    return;
  }
  setBusy(false);
  state.startDraft = null;
  store.set(`title:${draft.sessionId}`, userInput);
  history.pushState(null, "", `#${draft.sessionId}`);
  enterSession(draft.sessionId, {
    title: userInput,
    files: [{ ...draft.file, progress: { translatedChars: 0, totalChars: draft.file.chars, complete: false } }],
    messages: [],
    messageCount: 0,
  });
  state.sources.set(draft.fileId, content);
  refreshDocument(draft.fileId, { source: true });
  runLoop({ sessionId: draft.sessionId, userInput });
}

/* ---------- session view ---------- */

function enterSession(id, { title, files, messages, messageCount, messagesComplete = true }) {
  state.view = "session";
  state.sessionId = id;
  state.title = title || null;
  state.lang = langTag(languageFromTitle(title));
  state.files = files || [];
  state.activeFileId = state.files[0]?.fileId || null;
  state.sources = new Map();
  state.units = new Map();
  state.translations = new Map();
  state.fresh = new Set();
  state.batch = [];
  state.messages = messages || [];
  state.localInputs = new Set();
  state.stoppedCall = null;
  state.messageCount = messageCount ?? state.messages.length;
  state.messagesComplete = messagesComplete;
  $("view-home").hidden = true;
  $("view-session").hidden = false;
  $("topbar-session").hidden = false;
  $("shortcuts").hidden = false;
  $("continue").hidden = true;
  $("cards").replaceChildren();
  $("idle").hidden = true;
  $("approve-all").hidden = true;
  $("review-count").textContent = "";
  renderTitle();
  renderFiles();
  renderProgress();
  renderTimeline();
  renderDocument();
  refreshMemory();
}

function renderTitle() {
  const file = state.files[0];
  const language = languageFromTitle(state.title);
  const text = file && language ? `${file.name} → ${language}` : state.title || file?.name || "Session";
  $("session-title").textContent = text;
  $("session-title").title = state.title || "";
  document.title = `${text} · Translation review`;
}

async function openSession(id) {
  stopLoop();
  clearError();
  const token = ++state.loadToken;
  setPhase("loading");
  setStatus("Loading the session…", { spinner: true });
  $("view-home").hidden = true;
  let data;
  try {
    data = await api.session(id);
  } catch (err) {
    if (token !== state.loadToken) return;
    setStatus("");
    if (err.status === 404) {
      showError(new Error("This session does not exist any more (or belongs to someone else)."), null);
      history.replaceState(null, "", location.pathname + location.search);
      showHome();
      $("error").hidden = false;
      return;
    }
    showError(err, err.retryable ? () => openSession(id) : null);
    return;
  }
  if (token !== state.loadToken) return;
  const title = store.get(`title:${id}`) || firstUserInput(data.messages);
  enterSession(id, {
    title,
    files: data.files,
    messages: data.messages,
    messageCount: data.messageCount ?? data.messages.length,
    messagesComplete: data.messagesComplete !== false,
  });
  restore(data, { autoSend: false });
  for (const f of state.files) if (f.fileId === state.activeFileId) refreshDocument(f.fileId, { source: true });
}

/** Show what the server says is current: pending cards, or the idle state. */
function restore(data, { autoSend }) {
  state.files = data.files || state.files;
  renderFiles();
  renderProgress();
  const pending = data.pendingCopilotRequests || [];
  if (pending.length) {
    state.actor = "user";
    showBatch(pending, { autoSend });
    return;
  }
  state.actor = data.actor || nextActor(state.messages);
  if (state.actor === "agent") {
    showWaiting();
  } else {
    showIdle();
  }
}

/** Re-read the session after a conflict, a lost answer or a stop; optionally carry on. */
async function resync({ resume = false, autoSend = false, resend = null } = {}) {
  clearError();
  setStatus("Checking the session on the server…", { spinner: true });
  let data;
  try {
    data = await api.session(state.sessionId);
  } catch (err) {
    setStatus("");
    showError(err, err.retryable ? () => resync({ resume, autoSend, resend }) : null);
    return;
  }
  const before = state.messageCount;
  state.messages = data.messages;
  state.localInputs = new Set();
  state.messageCount = data.messageCount ?? data.messages.length;
  state.messagesComplete = data.messagesComplete !== false;
  renderTimeline();
  restore(data, { autoSend });
  refreshDocument(state.activeFileId);
  if (resend && state.messageCount === before && !(data.pendingCopilotRequests || []).length) {
    // Nothing was committed: the lost request never ran; send it again.
    runLoop(resend.body, resend.key);
  } else if (resume && state.actor === "agent" && !(data.pendingCopilotRequests || []).length) {
    runLoop({ sessionId: state.sessionId });
  }
}

/* ---------- the loop ---------- */

/**
 * doNext: send `body` (input or verdicts first, then empty "continue" bodies) while the agent
 * has the turn; stop at the human's turn or when copilot requests arrive.
 */
async function runLoop(body, key = newKey()) {
  if (state.busy) return;
  clearError();
  const controller = new AbortController();
  state.controller = controller;
  setBusy(true);
  setPhase("working");
  $("continue").hidden = true;
  let steps = 0;
  let current = body;
  let currentKey = key;
  const sentVerdicts = Boolean(body.copilotResponses);
  if (!sentVerdicts) showWaiting();
  try {
    for (;;) {
      const countBefore = state.messageCount;
      setStatus(
        current.copilotResponses
          ? `Sending ${current.copilotResponses.length === 1 ? "your verdict" : `${current.copilotResponses.length} verdicts`}…`
          : steps === 0 && current.userInput
            ? "Sending your message…"
            : "The agent is working…",
        { spinner: true },
      );
      let res;
      try {
        res = await api.next(current, { signal: controller.signal, key: currentKey });
      } catch (err) {
        err.countBefore = countBefore;
        throw err;
      }
      steps++;
      applyStep(res, current);
      const ar = res.agentResponse;
      if (ar.copilotRequests && ar.copilotRequests.length) {
        showBatch(ar.copilotRequests, { autoSend: false });
        break;
      }
      if (ar.actor !== "agent") {
        showIdle();
        break;
      }
      current = { sessionId: state.sessionId };
      currentKey = newKey();
    }
  } catch (err) {
    if (err.aborted) {
      // Continue re-reads the session and sends this again only if it never ran.
      state.stoppedCall = { body: current, key: currentKey };
      setPhase("stopped");
      setStatus("Stopped. The last step may still have finished on the server.");
      $("continue").hidden = false;
      $("continue").focus({ preventScroll: true });
    } else {
      setPhase(state.batch.length ? "review" : "stopped");
      setStatus("");
      const failed = { body: current, key: currentKey };
      if (err.status === 0 || err.status === 409) {
        // Lost answer or conflict: look at the server first, then resend only if nothing ran.
        showError(err, () => resync({ resume: true, autoSend: true, resend: err.status === 0 ? failed : null }));
      } else if (err.status === 503 || err.status === 504) {
        // The session is unchanged: the same call, as a new attempt.
        showError(err, () => runLoop(failed.body, newKey()));
      } else {
        showError(err, null);
      }
      if (!state.batch.length) $("continue").hidden = false;
    }
  } finally {
    if (state.controller === controller) state.controller = null;
    setBusy(false);
  }
}

function applyStep(res, body) {
  if (res.sessionId && res.sessionId !== state.sessionId) {
    state.sessionId = res.sessionId;
    history.replaceState(null, "", `#${res.sessionId}`);
  }
  const ar = res.agentResponse;
  state.actor = ar.actor;
  let messages = ar.messages || [];
  state.messageCount += messages.length;
  if (body.userInput) {
    // The step's messages leave out the user's own input message: show it from what was sent.
    const echoed = messages.some((m) => (m.parts || []).some((p) => p.part_kind === "user-prompt" && p.content === body.userInput));
    if (!echoed) {
      messages = [{ kind: "request", parts: [{ part_kind: "user-prompt", content: body.userInput }] }, ...messages];
      state.messageCount += 1;
      state.localInputs.add(body.userInput);
    }
  } else if (state.localInputs.size) {
    // Input deferred to join tool returns may come back later: do not show it twice.
    messages = messages.map((m) => {
      const parts = (m.parts || []).filter((p) => !(p.part_kind === "user-prompt" && state.localInputs.delete(p.content)));
      return parts.length === (m.parts || []).length ? m : { ...m, parts };
    });
  }
  if (messages.length) {
    state.messages.push(...messages);
    appendTimeline(messages);
  }
  if (Array.isArray(res.progress) && res.progress.length) {
    state.files = res.progress;
    renderFiles();
    renderProgress();
  }
  if (body.copilotResponses) {
    // Verdicts were committed: units were written. Forget the batch and refresh the preview.
    store.set(`verdicts:${state.sessionId}`, null);
    state.fresh = new Set(body.copilotResponses.filter((r) => r.status !== "reject").map((r) => r.tool.callId));
    const files = new Set(state.batch.map((b) => b.req.file_id));
    state.batch = [];
    $("cards").replaceChildren();
    $("approve-all").hidden = true;
    showWaiting();
    for (const f of files.size ? files : [state.activeFileId]) refreshDocument(f);
    // The server learned from edits and rejections after committing them: show what it learned.
    refreshMemory();
  }
}

/* ---------- review cards ---------- */

function savedVerdicts() {
  return store.get(`verdicts:${state.sessionId}`, {}) || {};
}

function saveVerdicts() {
  const saved = {};
  for (const item of state.batch) if (item.decision) saved[item.req.tool.callId] = item.decision;
  store.set(`verdicts:${state.sessionId}`, Object.keys(saved).length ? saved : null);
}

function showBatch(requests, { autoSend }) {
  const saved = savedVerdicts();
  state.batch = requests.map((req) => ({ req, decision: saved[req.tool.callId] || null, mode: "view", el: null }));
  const cards = $("cards");
  cards.replaceChildren();
  state.batch.forEach((item, i) => {
    item.el = buildCard(item, i, state.batch.length);
    cards.append(item.el);
    updateCard(i);
  });
  $("idle").hidden = true;
  $("continue").hidden = true;
  setPhase("review");
  const first = state.batch.findIndex((b) => !b.decision);
  updateReviewHead();
  const target = state.batch[0].req.file_id;
  if (target && target !== state.activeFileId && state.files.some((f) => f.fileId === target)) {
    state.activeFileId = target;
    renderFiles();
    refreshDocument(target, { source: true });
  } else {
    renderSource();
  }
  if (first === -1) {
    if (autoSend) sendVerdicts();
    else focusCard(0);
  } else {
    focusCard(first);
  }
}

function updateReviewHead() {
  const total = state.batch.length;
  const decided = state.batch.filter((b) => b.decision).length;
  $("review-count").textContent = total
    ? `${num.format(decided)} of ${num.format(total)} decided`
    : "";
  $("approve-all").hidden = total < 2 || decided === total;
  const n = total - decided;
  setStatus(
    total && n
      ? `Waiting for your review: ${n === 1 ? "1 unit" : `${num.format(n)} units`}.`
      : total
        ? "All units decided."
        : "",
  );
}

function buildCard(item, index, total) {
  const { req } = item;
  const id = `card-${index}`;
  const source = state.sources.get(req.file_id);
  const file = state.files.find((f) => f.fileId === req.file_id);
  const where = [
    file?.name,
    source != null ? `line ${num.format(lineOf(source, unitIndexer(source)(req.start ?? 0)))}` : `character ${num.format(req.start ?? 0)}`,
  ]
    .filter(Boolean)
    .join(" · ");
  const editId = `${id}-edit`;
  const reasonId = `${id}-reason`;
  const warnings = (req.warnings || []).filter(Boolean);
  const card = h(
    "article",
    {
      class: "card",
      id,
      tabindex: "-1",
      "data-index": index,
      "data-call-id": req.tool.callId,
      "data-start": req.start ?? 0,
      "aria-labelledby": `${id}-title`,
      "aria-describedby": `${id}-verdict`,
    },
    h(
      "header",
      { class: "card-head" },
      h("h3", { class: "card-title", id: `${id}-title`, text: `Unit ${index + 1} of ${total}` }),
      h("span", { class: "card-where", text: where }),
      h("span", { class: "card-verdict", id: `${id}-verdict` }),
    ),
    warnings.length
      ? h(
          "ul",
          { class: "card-warnings", "aria-label": "Warnings" },
          warnings.map((w) => h("li", { text: w })),
        )
      : null,
    h(
      "div",
      { class: "card-pair" },
      h(
        "div",
        { class: "card-col" },
        h("div", { class: "col-label", text: "Source" }),
        h("div", { class: "card-text card-source", text: req.src_string }),
      ),
      h(
        "div",
        { class: "card-col" },
        h("div", { class: "col-label card-proposal-label", text: "Proposal" }),
        h("div", { class: "card-text card-proposal", lang: state.lang, dir: "auto", text: req.translate_string }),
        h("div", { class: "card-text card-diff", lang: state.lang, dir: "auto", hidden: true }),
      ),
    ),
    h(
      "div",
      { class: "card-editor", hidden: true },
      h("label", { for: editId, text: "Your translation" }),
      h("textarea", { id: editId, class: "edit-text", lang: state.lang, dir: "auto", spellcheck: "true" }),
      h(
        "div",
        { class: "col-label" },
        "Changes against the proposal ",
        h("span", { class: "diff-stats" }),
      ),
      h("div", { class: "card-text card-live-diff", lang: state.lang, dir: "auto" }),
      h("p", { class: "field-error", role: "alert", hidden: true }),
      h(
        "div",
        { class: "form-actions" },
        h("button", { type: "button", class: "button button-primary", "data-action": "save-edit", "aria-keyshortcuts": "Control+Enter" },
          "Save and approve ", kbd("Ctrl", "Enter")),
        h("button", { type: "button", class: "button button-secondary", "data-action": "cancel", "aria-keyshortcuts": "Escape" },
          "Cancel ", kbd("Esc")),
      ),
    ),
    h(
      "div",
      { class: "card-reject", hidden: true },
      h("label", { for: reasonId }, "Why reject? ", h("span", { class: "hint", text: "The model reads this and proposes again." })),
      h(
        "div",
        { class: "chips", role: "group", "aria-label": "Common reasons" },
        REJECT_REASONS.map((r) => h("button", { type: "button", class: "chip", "data-reason": r, text: r })),
      ),
      h("textarea", { id: reasonId, class: "reason-text", rows: "2" }),
      h(
        "div",
        { class: "form-actions" },
        h("button", { type: "button", class: "button button-danger", "data-action": "save-reject", "aria-keyshortcuts": "Control+Enter" },
          "Reject ", kbd("Ctrl", "Enter")),
        h("button", { type: "button", class: "button button-secondary", "data-action": "cancel", "aria-keyshortcuts": "Escape" },
          "Cancel ", kbd("Esc")),
      ),
    ),
    h(
      "footer",
      { class: "card-actions" },
      h("button", { type: "button", class: "button button-approve", "data-action": "approve", "aria-keyshortcuts": "A" }, "Approve ", kbd("A")),
      h("button", { type: "button", class: "button button-secondary", "data-action": "edit", "aria-keyshortcuts": "E" }, "Edit ", kbd("E")),
      h("button", { type: "button", class: "button button-secondary button-reject", "data-action": "reject", "aria-keyshortcuts": "R" }, "Reject ", kbd("R")),
    ),
  );
  card.addEventListener("click", (e) => {
    const i = Number(card.dataset.index);
    const action = e.target.closest("[data-action]")?.dataset.action;
    const chip = e.target.closest("[data-reason]");
    if (chip) {
      const ta = card.querySelector(".reason-text");
      ta.value = ta.value.trim() ? `${ta.value.trim()}; ${chip.dataset.reason}` : chip.dataset.reason;
      ta.focus();
      return;
    }
    if (!action) {
      if (!e.target.closest("textarea, button, a") && i !== state.current) focusCard(i);
      return;
    }
    if (state.busy) return;
    if (action === "approve") approve(i);
    else if (action === "edit") openMode(i, "edit");
    else if (action === "reject") openMode(i, "reject");
    else if (action === "save-edit") commitEdit(i);
    else if (action === "save-reject") commitReject(i);
    else if (action === "cancel") closeMode(i);
  });
  card.addEventListener("keydown", (e) => {
    if (!e.target.matches("textarea")) return;
    const i = Number(card.dataset.index);
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      e.stopPropagation();
      if (state.batch[i].mode === "edit") commitEdit(i);
      else commitReject(i);
    } else if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      closeMode(i);
    }
  });
  const edit = card.querySelector(".edit-text");
  let pending = 0;
  edit.addEventListener("input", () => {
    autosize(edit);
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => updateLiveDiff(Number(card.dataset.index)));
  });
  card.querySelector(".reason-text").addEventListener("input", (e) => autosize(e.target));
  return card;
}

function updateLiveDiff(i) {
  const item = state.batch[i];
  const card = item.el;
  const ops = diffWords(item.req.translate_string, card.querySelector(".edit-text").value);
  renderDiff(card.querySelector(".card-live-diff"), ops);
  const { removed, added } = diffStats(ops);
  card.querySelector(".diff-stats").textContent =
    removed || added ? `(${num.format(removed)} words removed, ${num.format(added)} added)` : "(none)";
}

const VERDICT_TEXT = { approve: "Approved", refined: "Edited", reject: "Rejected" };

function updateCard(i) {
  const item = state.batch[i];
  const card = item.el;
  const d = item.decision;
  card.dataset.verdict = d ? d.status : "";
  card.dataset.mode = item.mode;
  const verdict = card.querySelector(".card-verdict");
  verdict.textContent = d ? VERDICT_TEXT[d.status] + (d.status === "reject" && d.reason ? `: ${d.reason}` : "") : "Not decided";
  verdict.title = verdict.textContent;
  const diff = card.querySelector(".card-diff");
  const proposal = card.querySelector(".card-proposal");
  if (d && d.status === "refined") {
    renderDiff(diff, diffWords(item.req.translate_string, d.text));
    diff.hidden = false;
    proposal.hidden = true;
    card.querySelector(".card-proposal-label").textContent = "Your edit (changes against the proposal)";
  } else {
    diff.hidden = true;
    proposal.hidden = false;
    card.querySelector(".card-proposal-label").textContent = "Proposal";
  }
  card.querySelector(".card-editor").hidden = item.mode !== "edit";
  card.querySelector(".card-reject").hidden = item.mode !== "reject";
  card.querySelector(".card-actions").hidden = item.mode !== "view";
}

function focusCard(i, { scroll = true } = {}) {
  if (!state.batch.length) return;
  i = Math.max(0, Math.min(state.batch.length - 1, i));
  state.current = i;
  state.batch.forEach((item, k) => {
    item.el.classList.toggle("current", k === i);
    item.el.setAttribute("tabindex", k === i ? "0" : "-1");
  });
  const card = state.batch[i].el;
  if (state.batch[i].mode === "view") card.focus({ preventScroll: true });
  if (scroll) card.scrollIntoView({ block: "nearest", behavior: "smooth" });
  highlightCurrentInSource();
}

function approve(i) {
  const item = state.batch[i];
  item.mode = "view";
  item.decision = { status: "approve" };
  decided(i);
}

function openMode(i, mode) {
  const item = state.batch[i];
  if (state.current !== i) focusCard(i);
  item.mode = mode;
  updateCard(i);
  const card = item.el;
  card.querySelector(".field-error").hidden = true;
  if (mode === "edit") {
    const ta = card.querySelector(".edit-text");
    ta.value = item.decision?.status === "refined" ? item.decision.text : item.req.translate_string;
    autosize(ta);
    updateLiveDiff(i);
    ta.focus();
    ta.setSelectionRange(ta.value.length, ta.value.length);
  } else {
    const ta = card.querySelector(".reason-text");
    ta.value = item.decision?.status === "reject" ? item.decision.reason || "" : "";
    autosize(ta);
    ta.focus();
  }
  card.scrollIntoView({ block: "nearest" });
}

function closeMode(i) {
  const item = state.batch[i];
  item.mode = "view";
  updateCard(i);
  focusCard(i, { scroll: false });
}

function commitEdit(i) {
  const item = state.batch[i];
  const text = item.el.querySelector(".edit-text").value;
  if (!text.trim()) {
    const err = item.el.querySelector(".field-error");
    err.textContent = "The translation cannot be empty. To drop this proposal, reject it instead.";
    err.hidden = false;
    return;
  }
  item.mode = "view";
  item.decision = text === item.req.translate_string ? { status: "approve" } : { status: "refined", text };
  decided(i);
}

function commitReject(i) {
  const item = state.batch[i];
  const reason = item.el.querySelector(".reason-text").value.trim();
  item.mode = "view";
  item.decision = { status: "reject", reason };
  decided(i);
}

function decided(i) {
  updateCard(i);
  saveVerdicts();
  updateReviewHead();
  renderSource();
  const n = state.batch.length;
  for (let step = 1; step <= n; step++) {
    const k = (i + step) % n;
    if (!state.batch[k].decision && state.batch[k].mode === "view") {
      focusCard(k);
      return;
    }
  }
  if (state.batch.some((b) => b.mode !== "view")) return; // another card is still being edited
  sendVerdicts();
}

function approveAll() {
  let any = false;
  state.batch.forEach((item, i) => {
    if (!item.decision) {
      item.mode = "view";
      item.decision = { status: "approve" };
      updateCard(i);
      any = true;
    }
  });
  if (!any) return;
  saveVerdicts();
  updateReviewHead();
  sendVerdicts();
}

function sendVerdicts() {
  if (state.busy || !state.batch.length || state.batch.some((b) => !b.decision)) return;
  const copilotResponses = state.batch.map(({ req, decision }) => {
    const response = { tool: { name: req.tool.name, callId: req.tool.callId }, status: decision.status };
    if (decision.status === "refined") response.translated_string = decision.text;
    if (decision.status === "reject" && decision.reason) response.reason = decision.reason;
    return response;
  });
  runLoop({ sessionId: state.sessionId, copilotResponses });
}

/* ---------- idle: the agent waits for the human, or is working ---------- */

function allComplete() {
  return state.files.length > 0 && state.files.every((f) => f.progress?.complete);
}

function showWaiting() {
  $("cards").replaceChildren(
    h("div", { class: "placeholder" }, h("span", { class: "spinner", "aria-hidden": "true" }), " The agent is preparing the next units…"),
  );
  $("idle").hidden = true;
  $("approve-all").hidden = true;
  $("review-count").textContent = "";
  if (!state.busy) {
    // Restored while the agent had the turn (e.g. after a reload): let the human resume it.
    $("cards").replaceChildren(h("p", { class: "placeholder", text: "The agent has more work to do on this session." }));
    setPhase("stopped");
    setStatus("Paused: the agent has the turn. Continue when you are ready.");
    $("continue").hidden = false;
  }
}

function showIdle() {
  $("cards").replaceChildren();
  $("approve-all").hidden = true;
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
      "Every part of the document has been reviewed. Download it, or ask the agent for changes.",
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

function setupComposer() {
  const form = $("composer");
  const ta = $("composer-text");
  const send = () => {
    const text = ta.value.trim();
    if (!text || state.busy) return;
    ta.value = "";
    autosize(ta);
    $("idle").hidden = true;
    runLoop({ sessionId: state.sessionId, userInput: text });
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    send();
  });
  ta.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      send();
    } else if (e.key === "Escape") {
      ta.blur();
    }
  });
  ta.addEventListener("input", () => autosize(ta));
}

/* ---------- conversation and activity ---------- */

function fileNames() {
  return new Map(state.files.map((f) => [f.fileId, f.name]));
}

function renderTimeline() {
  $("timeline").replaceChildren();
  $("history-more").hidden = state.messagesComplete;
  appendTimeline(state.messages);
}

function appendTimeline(messages) {
  const list = $("timeline");
  for (const entry of timelineEntries(messages, fileNames())) {
    if (entry.kind === "activity") {
      let group = list.lastElementChild;
      if (!group || !group.classList.contains("activity-group")) {
        group = h(
          "li",
          { class: "activity-group" },
          h("details", {}, h("summary", {}, h("span", { class: "activity-count" }), h("span", { class: "activity-last" })), h("ol", { class: "activity-list" })),
        );
        list.append(group);
      }
      const items = group.querySelector(".activity-list");
      items.append(h("li", { class: `activity tone-${entry.tone}`, text: entry.text }));
      const n = items.children.length;
      group.querySelector(".activity-count").textContent = `${n} ${n === 1 ? "step" : "steps"}`;
      group.querySelector(".activity-last").textContent = entry.text;
    } else {
      list.append(
        h(
          "li",
          { class: `bubble bubble-${entry.kind}` },
          h("span", { class: "bubble-who", text: entry.kind === "user" ? "You" : "Agent" }),
          h("p", { class: "bubble-text", dir: "auto", text: entry.text }),
        ),
      );
    }
  }
  const bubbles = list.querySelectorAll(".bubble").length;
  $("conversation-count").textContent = bubbles ? `(${bubbles} ${bubbles === 1 ? "message" : "messages"})` : "";
  const conv = $("conversation");
  if (conv.open) conv.scrollTop = conv.scrollHeight;
}

async function loadFullHistory() {
  const all = [];
  let cursor = null;
  try {
    do {
      const page = await api.messages(state.sessionId, cursor);
      all.push(...page.messages);
      cursor = page.nextCursor;
    } while (cursor);
  } catch (err) {
    showError(err, err.retryable ? () => (clearError(), loadFullHistory()) : null);
    return;
  }
  state.messages = all;
  state.messagesComplete = true;
  renderTimeline();
}

/* ---------- files, progress, document preview ---------- */

function renderFiles() {
  const select = $("file-select");
  $("file-select-wrap").hidden = state.files.length < 2;
  select.replaceChildren(...state.files.map((f) => h("option", { value: f.fileId, text: f.name })));
  if (state.activeFileId) select.value = state.activeFileId;
  const file = state.files.find((f) => f.fileId === state.activeFileId);
  const link = $("download");
  if (file && state.sessionId) {
    link.href = api.translationUrl(state.sessionId, file.fileId);
    link.textContent = state.files.length > 1 ? `Download ${file.name}` : "Download translation";
    link.hidden = false;
  } else {
    link.hidden = true;
  }
}

/** With a sign-in the download goes through fetch: a plain link would carry no token. */
async function downloadWithToken() {
  const file = state.files.find((f) => f.fileId === state.activeFileId);
  if (!file || !state.sessionId) return;
  try {
    const { blob, name } = await api.download(state.sessionId, file.fileId);
    const url = URL.createObjectURL(blob);
    const link = h("a", { href: url, download: name, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } catch (err) {
    showError(err, err.retryable ? () => downloadWithToken() : null);
  }
}

function renderProgress() {
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

async function refreshDocument(fileId, { source = false } = {}) {
  if (!fileId || !state.sessionId) return;
  const sid = state.sessionId;
  try {
    const [file, units, text] = await Promise.all([
      api.file(sid, fileId),
      api.units(sid, fileId),
      source || !state.sources.has(fileId) ? api.source(sid, fileId) : Promise.resolve(state.sources.get(fileId)),
    ]);
    if (sid !== state.sessionId) return;
    state.sources.set(fileId, typeof text === "string" ? text : String(text));
    state.units.set(fileId, units.units || []);
    state.translations.set(fileId, file.translation ?? "");
    const known = state.files.find((f) => f.fileId === fileId);
    if (known) Object.assign(known, { progress: file.progress, chars: file.chars, name: file.name });
    renderProgress();
    if (fileId === state.activeFileId) renderDocument();
    relabelCards();
  } catch (err) {
    if (sid !== state.sessionId) return;
    $("translation-pane").replaceChildren(h("p", { class: "hint", text: `The preview could not be loaded: ${err.message}` }));
  }
}

/** Once the source is known, cards can say "line 12" instead of a character offset. */
function relabelCards() {
  for (const item of state.batch) {
    const source = state.sources.get(item.req.file_id);
    const file = state.files.find((f) => f.fileId === item.req.file_id);
    if (source == null) continue;
    item.el.querySelector(".card-where").textContent = [file?.name, `line ${num.format(lineOf(source, unitIndexer(source)(item.req.start ?? 0)))}`]
      .filter(Boolean)
      .join(" · ");
  }
}

function renderDocument() {
  renderSource();
  renderTranslation();
}

function renderSource() {
  const pane = $("source-pane");
  const fileId = state.activeFileId;
  const text = state.sources.get(fileId);
  if (text == null) {
    pane.replaceChildren(h("p", { class: "hint", text: fileId ? "Loading the source…" : "No document in this session." }));
    return;
  }
  const at = unitIndexer(text);
  const marks = [];
  for (const u of state.units.get(fileId) || []) {
    marks.push({ start: at(u.start), end: at(u.end), cls: u.status === "refined" ? "seg-done seg-edited" : "seg-done", title: u.status === "refined" ? "Translated (edited)" : "Translated" });
  }
  state.batch.forEach((item, index) => {
    if (item.req.file_id !== fileId) return;
    const start = item.req.start != null ? at(item.req.start) : text.indexOf(item.req.src_string);
    if (start < 0) return;
    const verdict = item.decision ? ` seg-${item.decision.status}` : "";
    marks.push({ start, end: start + item.req.src_string.length, cls: `seg-pending${verdict}`, index, title: `Unit ${index + 1} in review` });
  });
  marks.sort((a, b) => a.start - b.start);
  const out = [];
  let pos = 0;
  for (const m of marks) {
    if (m.start < pos) continue;
    if (m.start > pos) out.push(text.slice(pos, m.start));
    const span = h("span", { class: m.cls, title: m.title, text: text.slice(m.start, m.end) });
    if (m.index != null) {
      span.dataset.index = m.index;
      span.addEventListener("click", () => focusCard(m.index));
    }
    out.push(span);
    pos = m.end;
  }
  if (pos < text.length) out.push(text.slice(pos));
  pane.replaceChildren(...out);
  highlightCurrentInSource();
}

function highlightCurrentInSource() {
  const pane = $("source-pane");
  for (const el of pane.querySelectorAll(".seg-current")) el.classList.remove("seg-current");
  const span = pane.querySelector(`.seg-pending[data-index="${state.current}"]`);
  if (!span) return;
  span.classList.add("seg-current");
  scrollPaneTo(pane, span);
}

function scrollPaneTo(pane, el) {
  const top = el.offsetTop - pane.offsetTop;
  if (top < pane.scrollTop + 24 || top + el.offsetHeight > pane.scrollTop + pane.clientHeight - 24) {
    pane.scrollTo({ top: Math.max(0, top - pane.clientHeight / 3), behavior: "smooth" });
  }
}

function renderTranslation() {
  const pane = $("translation-pane");
  const fileId = state.activeFileId;
  const text = state.translations.get(fileId);
  if (pane.lang !== (state.lang || "")) pane.lang = state.lang || "";
  if (text == null) {
    pane.replaceChildren(h("p", { class: "hint", text: "Loading the translation…" }));
    return;
  }
  if (!text) {
    pane.replaceChildren(h("p", { class: "hint", text: "Nothing translated yet. Approved units appear here as you go." }));
    return;
  }
  // Locate each written unit in the assembled text, in order, to mark what just arrived.
  const out = [];
  let pos = 0;
  let firstFresh = null;
  for (const u of state.units.get(fileId) || []) {
    if (!u.text) continue;
    const at = text.indexOf(u.text, pos);
    if (at < 0) continue;
    if (at > pos) out.push(text.slice(pos, at));
    const fresh = state.fresh.has(u.callId);
    const span = h("span", { class: `seg-done${u.status === "refined" ? " seg-edited" : ""}${fresh ? " seg-fresh" : ""}`, text: u.text });
    if (fresh && !firstFresh) firstFresh = span;
    out.push(span);
    pos = at + u.text.length;
  }
  if (pos < text.length) out.push(text.slice(pos));
  pane.replaceChildren(...out);
  if (firstFresh) scrollPaneTo(pane, firstFresh);
}

function setupDocument() {
  $("file-select").addEventListener("change", (e) => {
    state.activeFileId = e.target.value;
    renderFiles();
    renderDocument();
    refreshDocument(state.activeFileId);
  });
  const tabs = [["tab-both", "both"], ["tab-source", "source"], ["tab-translation", "translation"]];
  for (const [id, show] of tabs) {
    $(id).addEventListener("click", () => {
      $("panes").dataset.show = show;
      for (const [other] of tabs) $(other).setAttribute("aria-selected", String(other === id));
    });
  }
  document.querySelector(".tabs").addEventListener("keydown", (e) => {
    if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
    const visible = [...document.querySelectorAll(".tabs .tab")].filter((t) => t.offsetParent !== null);
    const at = visible.indexOf(document.activeElement);
    if (at < 0) return;
    const next = visible[(at + (e.key === "ArrowRight" ? 1 : visible.length - 1)) % visible.length];
    next.focus();
    next.click();
    e.preventDefault();
  });
  // On a narrow window "side by side" is hidden: show the source instead.
  const narrow = window.matchMedia("(max-width: 999px)");
  const adapt = () => {
    if (narrow.matches && $("panes").dataset.show === "both") $("tab-source").click();
  };
  narrow.addEventListener("change", adapt);
  adapt();
}

/* ---------- memory: what the agent learned about this reviewer ---------- */

function languagesLabel(pair) {
  const target = (pair || "").split(">")[1] || "";
  if (!target || target === "*") return "all languages";
  if (target === "unknown") return "any language";
  return target.replace(/(^|[\s(-])\p{L}/gu, (m) => m.toUpperCase());
}

let memoryToken = 0;

async function refreshMemory() {
  if (state.view !== "session") return;
  const token = ++memoryToken;
  try {
    const data = await api.memory();
    if (token !== memoryToken) return;
    $("memory-error").hidden = true;
    renderMemory(data);
  } catch (err) {
    if (token !== memoryToken) return;
    $("memory-error").textContent = `Your memory could not be loaded: ${err.message}`;
    $("memory-error").hidden = false;
  }
}

function memoryItem(entry, label, text) {
  const origin = entry.origin === "learned" ? "learned from your edits" : "added by you";
  return h(
    "li",
    { class: "memory-item", "data-entry-id": entry.id, "data-origin": entry.origin },
    h("span", { class: "memory-text" }, text),
    h("span", { class: "memory-meta", text: `${languagesLabel(entry.languages)} · ${origin}` }),
    h("button", {
      type: "button",
      class: "button button-quiet button-small memory-delete",
      "aria-label": `Delete ${label}`,
      text: "Delete",
      onclick: () => deleteMemoryEntry(entry.id),
    }),
  );
}

function renderMemory(data) {
  const glossary = data.glossary || [];
  const notes = data.styleNotes || [];
  $("memory-glossary").replaceChildren(
    ...glossary.map((e) =>
      memoryItem(e, `the term “${e.source}”`, [
        h("span", { class: "memory-source", text: e.source }),
        h("span", { class: "memory-arrow", "aria-label": "translated as", text: " → " }),
        h("span", { class: "memory-target", lang: state.lang, text: e.target }),
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

async function deleteMemoryEntry(entryId) {
  const item = document.querySelector(`.memory-item[data-entry-id="${entryId}"]`);
  const next = item?.nextElementSibling?.querySelector(".memory-delete") || $("memory-source");
  try {
    await api.deleteMemory(entryId);
  } catch (err) {
    if (err.status !== 404) {
      $("memory-error").textContent = `The entry could not be deleted: ${err.message}`;
      $("memory-error").hidden = false;
      return;
    }
  }
  item?.remove();
  next.focus({ preventScroll: true });
  refreshMemory();
}

function setupMemory() {
  const panel = $("memory");
  panel.open = store.get("memoryOpen", true) !== false;
  panel.addEventListener("toggle", () => store.set("memoryOpen", panel.open));
  $("memory-add").addEventListener("submit", async (e) => {
    e.preventDefault();
    const source = $("memory-source").value.trim();
    const target = $("memory-target").value.trim();
    if (!source || !target) {
      $("memory-error").textContent = "Give the term and its translation.";
      $("memory-error").hidden = false;
      $(source ? "memory-target" : "memory-source").focus();
      return;
    }
    const entry = { source, target };
    const language = languageFromTitle(state.title);
    if (language) entry.languages = `auto>${language}`;
    $("memory-add-button").disabled = true;
    try {
      await api.addGlossary(entry);
      $("memory-source").value = "";
      $("memory-target").value = "";
      $("memory-error").hidden = true;
      $("memory-source").focus();
      await refreshMemory();
    } catch (err) {
      $("memory-error").textContent = `The term could not be added: ${err.message}`;
      $("memory-error").hidden = false;
    } finally {
      $("memory-add-button").disabled = false;
    }
  });
}

/* ---------- keyboard ---------- */

function onKeydown(e) {
  if (e.defaultPrevented || e.isComposing) return;
  if (document.querySelector("dialog[open]")) return;
  const t = e.target;
  if (t && t.closest && t.closest("input, textarea, select, [contenteditable]:not([contenteditable='false'])")) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (state.view !== "session" || state.busy || !state.batch.length) return;
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  const i = state.current;
  const item = state.batch[i];
  if (!item) return;
  let handled = true;
  if (key === "a" && e.shiftKey) approveAll();
  else if (e.shiftKey) handled = false;
  else if (key === "a") approve(i);
  else if (key === "e") openMode(i, "edit");
  else if (key === "r") openMode(i, "reject");
  else if (key === "j") focusCard(i + 1);
  else if (key === "k") focusCard(i - 1);
  else handled = false;
  if (handled) e.preventDefault();
}

/* ---------- signing in ---------- */

/** Signed in without leaving the page (a pasted token): pick up where the user was. */
function afterSignIn() {
  clearError();
  if (state.view === "session" && state.sessionId) openSession(state.sessionId);
  else if (state.view === "home") loadSessions(false);
  else route();
}

/** Signing out forgets what this browser kept about the user's sessions: titles and unsent verdicts. */
function forgetSessions() {
  try {
    const keys = Array.from({ length: localStorage.length }, (_, i) => localStorage.key(i));
    for (const key of keys) if (/^(title|verdicts):/.test(key)) localStorage.removeItem(key);
  } catch {
    /* storage disabled: nothing was kept */
  }
}

/* ---------- wiring ---------- */

async function init() {
  setupStartForm();
  setupComposer();
  setupDocument();
  setupMemory();
  document.addEventListener("keydown", onKeydown);
  $("stop").addEventListener("click", stopLoop);
  $("continue").addEventListener("click", () => {
    $("continue").hidden = true;
    const resend = state.stoppedCall;
    state.stoppedCall = null;
    resync({ resume: true, autoSend: true, resend });
  });
  $("error-retry").addEventListener("click", () => {
    const retry = retryAction;
    clearError();
    if (retry) retry();
  });
  $("error-dismiss").addEventListener("click", clearError);
  $("approve-all").addEventListener("click", () => !state.busy && approveAll());
  $("sessions-more").addEventListener("click", () => loadSessions(true));
  $("sessions-refresh").addEventListener("click", () => loadSessions(false));
  $("history-more").addEventListener("click", loadFullHistory);
  $("delete-current").addEventListener("click", () => deleteSession(state.sessionId, $("session-title").textContent));
  $("download").addEventListener("click", (e) => {
    if (!signInRequired()) return; // the link downloads by itself
    e.preventDefault();
    downloadWithToken();
  });
  window.addEventListener("hashchange", route);
  window.addEventListener("popstate", route);
  if (await startAuth({ onSignedIn: afterSignIn, onSignOut: forgetSessions })) {
    route();
  } else {
    setPhase("signed-out");
    $("shortcuts").hidden = true;
    setStatus("Sign in to see and continue your translations.");
  }
}

init();
