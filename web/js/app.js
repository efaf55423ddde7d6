// @ts-check
// The reviewer's UI: wiring of the views around the DOM-free client (client.js). Start a translation,
// drive the loop, review proposals card by card, the workbench of segments, memory and sessions.

import { api } from "./api.js";
import { signInRequired, startAuth } from "./auth.js";
import { approveAll, clearBatch, focusCard, showBatch, updateReviewHead } from "./cards.js";
import { queuedText, StepClient } from "./client.js";
import { $, autosize, h, store, trackHeight } from "./dom.js";
import { analysisView, modelLabel } from "./analysis.js";
import { clearForming, showDelta } from "./forming.js";
import { onKeydown } from "./keys.js";
import { languageFromTitle, refreshMemory, setupMemory } from "./memory.js";
import { firstUserInput, nextActor } from "./messages.js";
import {
  afterPlainDownload, allComplete, exportFile, highlightCurrentInSource, refreshPreview, renderDocument, renderFiles,
  renderProgress, renderSource, setupDocument,
} from "./preview.js";
import { responses } from "./review.js";
import { highlightBatch, refreshSegments, renderSegments, setupSegments } from "./segments.js";
import { refreshScorecard, setupScorecard } from "./scorecard.js";
import { setupSourceLanguage, showSourceLanguage } from "./sourcelang.js";
import { setupAutoApprove, showAutoApprove } from "./autoapprove.js";
import { clearStartForm, deleteSession, langTag, loadSessions, setupStartForm } from "./sessions.js";
import { actions, state } from "./state.js";
import { clearError, retryNow, setBusy, setPhase, setStatus, showError, syncStatusbar } from "./status.js";
import { appendNotice, appendTimeline, loadFullHistory, renderTimeline } from "./timeline.js";
// jobs: several languages at once, and where a session stands (waiting, failed, segments left)
import { totalEstimate } from "./analysis.js";
import { clearHold, setupHold, showHold } from "./hold.js";
import { createJob, hashJob, leaveJob, openedFromJob, renderJobList, setupJobs, showJob, showJobLink, shownJob } from "./jobs.js";
import { firstInput, firstInputSent, secondsUntil } from "./jobmodel.js";
import { formLanguages, setupLanguages } from "./startlangs.js";

/** @typedef {import("./types.js").NextBody} NextBody */
/** @typedef {import("./types.js").SessionView} SessionView */
/** @typedef {import("./types.js").StepResponse} StepResponse */
/** @typedef {import("./client.js").Outcome} Outcome */

const client = new StepClient(api);

/** @type {{sessionId: string | null, fileId?: string, file?: any, content: string, name: string, model?: string, userInput?: string, dirty?: boolean} | null} */
let startDraft = null;

/* ---------- routing and home ---------- */

function hashSession() {
  const m = /^#(s_[A-Za-z0-9_-]+)$/.exec(location.hash);
  return m ? m[1] : null;
}

function route() {
  const id = hashSession();
  const job = hashJob();
  if (job) {
    if (state.view !== "job" || shownJob() !== job) {
      stopLoop();
      showJob(job);
    }
  } else if (id) {
    if (id !== state.sessionId || state.view !== "session") openSession(id);
  } else if (state.view !== "home") {
    showHome();
  }
}

function stopLoop() {
  if (state.controller) state.controller.abort();
}

function showHome() {
  stopLoop();
  state.view = "home";
  state.sessionId = null;
  state.loadToken++;
  clearError();
  leaveJob(); // jobs
  renderJobList();
  $("view-home").hidden = false;
  $("view-session").hidden = true;
  $("topbar-session").hidden = true;
  $("continue").hidden = true;
  $("shortcuts").hidden = true;
  document.title = "Translation review";
  setPhase("home");
  setStatus("");
  loadSessions(false);
  if (!modelsListed) setupModels(); // once signed in: the home view is the first to need it
  const lang = $("target-lang");
  if (!lang.value) lang.value = store.get("lastLanguage", "") || "";
}

/**
 * The start form's session and upload, made once and reused while the text and name are the same
 * (by Analyze, then Start, or by a retry); null, with the form's error shown, when it is incomplete
 * or the server refused.
 * @param {string} status
 */
async function startDraftFor(status) {
  const content = $("doc-text").value;
  const name = $("doc-name").value.trim();
  const language = formLanguages()[0] ?? ""; // jobs: a job's draft is its first language's
  const model = $("model-field").hidden ? "" : /** @type {HTMLSelectElement} */ ($("model")).value;
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
    return null;
  }
  store.set("lastLanguage", language);
  // A retry reuses what already succeeded: the session, and the upload if the text is unchanged.
  let draft = startDraft;
  if (!draft || draft.content !== content || draft.name !== name || draft.model !== model) {
    // Another model is another session (it prices the analysis and translates); else the same one.
    const reuse = draft && !draft.fileId && draft.model === model;
    draft = { sessionId: reuse ? draft.sessionId : null, content, name, model };
  }
  startDraft = draft;
  clearError();
  setBusy(true);
  setStatus(status, { spinner: true });
  try {
    const tag = langTag(language);
    if (!draft.sessionId) {
      draft.sessionId = (await api.createSession({ ...(tag ? { targetLanguage: tag } : {}), ...(model ? { model } : {}) })).id;
    }
    if (!draft.fileId) draft.file = await api.upload(/** @type {string} */ (draft.sessionId), name, content);
    draft.fileId = draft.file.fileId;
    return draft;
  } catch (err) {
    const e = /** @type {any} */ (err);
    showError(e, e.retryable ? () => startDraftFor(status) : null);
    return null;
  } finally {
    setBusy(false);
    setStatus("");
  }
}

let modelsListed = false;
/** The start form's choice of model, shown when the service offers more than one. */
async function setupModels() {
  modelsListed = true; // asked once at a time
  let listed;
  try {
    listed = (await api.models()).models;
  } catch {
    modelsListed = false; // the field stays hidden (asked again next time home shows): a session gets the default
    return;
  }
  if (!listed || listed.length < 2) return;
  const select = /** @type {HTMLSelectElement} */ ($("model"));
  select.replaceChildren(...listed.map((/** @type {any} */ m) => h("option", { value: m.name }, modelLabel(m))));
  select.value = listed.find((/** @type {any} */ m) => m.default)?.name ?? listed[0].name;
  select.addEventListener("change", () => ($("start-analysis").hidden = true));
  $("model-field").hidden = false;
}

/** Analyze: the file's segments, words, memory matches and the cost, shown before Start. */
async function analyzeDocument() {
  if (state.busy) return;
  const draft = await startDraftFor("Analyzing the document…");
  if (!draft) return;
  try {
    const languages = formLanguages().map((l) => langTag(l) ?? l);
    const found = await Promise.all(
      languages.map((language) => api.analysis(/** @type {string} */ (draft.sessionId), /** @type {string} */ (draft.fileId), language)),
    );
    if (found.length === 1) showAnalysis(analysisView(found[0]));
    else {
      // jobs: the first language's matches; the estimate of every language, added up
      const view = analysisView({ ...found[0], estimate: totalEstimate(found.map((a) => a.estimate)) });
      showAnalysis({ ...view, estimate: `${languages.length} languages, a session each. ${view.estimate}` });
    }
  } catch (err) {
    showError(/** @type {any} */ (err), null);
  }
}

/** @param {{summary: string, rows: [string, string, string][], estimate: string}} view */
function showAnalysis(view) {
  $("analysis-summary").textContent = view.summary;
  $("analysis-rows").replaceChildren(
    ...view.rows.map(([label, segments, words]) =>
      h("tr", {}, h("th", { scope: "row" }, label), h("td", {}, segments), h("td", {}, words)),
    ),
  );
  $("analysis-estimate").textContent = view.estimate;
  $("start-analysis").hidden = false;
}

async function startTranslation() {
  if (state.busy) return;
  if (formLanguages().length > 1) return startJob(); // jobs
  const name = $("doc-name").value.trim();
  const language = formLanguages()[0] ?? ""; // jobs: the one language, wherever the form names it
  const instructions = $("instructions").value.trim();
  const draft = await startDraftFor("Uploading the document…");
  if (!draft) return;
  const userInput = `Translate ${name} into ${language}.${instructions ? ` Instructions: ${instructions}` : ""}`;
  const content = draft.content;
  draft.userInput = userInput;
  startDraft = null;
  $("start-analysis").hidden = true;
  clearStartForm();
  const sid = /** @type {string} */ (draft.sessionId);
  store.set(`title:${sid}`, userInput);
  history.pushState(null, "", `#${sid}`);
  enterSession(sid, {
    title: userInput,
    files: [{ ...draft.file, progress: { translatedChars: 0, totalChars: draft.file.chars, complete: false } }],
    messages: [],
    messageCount: 0,
  });
  state.sources.set(/** @type {string} */ (draft.fileId), content);
  refreshDocument(draft.fileId ?? null, { source: true });
  // The language the server detected from the upload (the step's answer does not carry it).
  api.session(sid).then((view) => sid === state.sessionId && (showSourceLanguage(view), showAutoApprove(view)), () => {});
  runLoop({ sessionId: sid, userInput });
}

/* ---------- session view ---------- */

/**
 * @param {string} id
 * @param {{title: string | null, files: any[], messages: any[], messageCount?: number, messagesComplete?: boolean, queued?: string[]}} data
 */
function enterSession(id, { title, files, messages, messageCount, messagesComplete = true, queued = [] }) {
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
  leaveJob(); // jobs
  showJobLink(id);
  clearHold();
  $("view-home").hidden = true;
  $("view-session").hidden = false;
  $("topbar-session").hidden = false;
  $("shortcuts").hidden = false;
  $("continue").hidden = true;
  $("cards").replaceChildren();
  $("idle").hidden = true;
  $("approve-all").hidden = true;
  $("send-verdicts").hidden = true;
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

function renderTitle() {
  const file = state.files[0];
  const language = languageFromTitle(state.title);
  const text = file && language ? `${file.name} → ${language}` : state.title || file?.name || "Session";
  $("session-title").textContent = text;
  $("session-title").title = state.title || "";
  document.title = `${text} · Translation review`;
}

/** @param {string} id */
async function openSession(id) {
  stopLoop();
  leaveJob(); // jobs
  clearError();
  const token = ++state.loadToken;
  setPhase("loading");
  setStatus("Loading the session…", { spinner: true });
  $("view-home").hidden = true;
  /** @type {SessionView} */
  let data;
  try {
    data = await api.session(id);
  } catch (err) {
    if (token !== state.loadToken) return;
    setStatus("");
    const e = /** @type {any} */ (err);
    if (e.status === 404) {
      history.replaceState(null, "", location.pathname + location.search);
      showHome();
      showError(new Error("This session does not exist any more (or belongs to someone else)."), null);
      return;
    }
    showError(e, e.retryable ? () => openSession(id) : null);
    return;
  }
  if (token !== state.loadToken) return;
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
  goOnFromStanding(data, openedFromJob(id)); // jobs
}

/** Show what the server says is current: pending cards, or the idle state. @param {SessionView} data */
function restore(data) {
  state.files = data.files || state.files;
  renderFiles();
  renderProgress();
  const pending = data.pendingCopilotRequests || [];
  if (pending.length) {
    state.actor = "user";
    showBatch(pending, { autoSend: false });
    return;
  }
  state.actor = data.actor || nextActor(state.messages);
  if (state.actor === "agent") showWaiting();
  else showIdle();
}

/** The server's view after a conflict: history, files and queue as stored. @param {SessionView} view */
function adoptView(view) {
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

/* ---------- the loop ---------- */

let countdown = 0;
/** The clock shown while the client waits out a provider's Retry-After. */
function stopCountdown() {
  clearInterval(countdown);
  countdown = 0;
}

/** @param {number} seconds */
function waitText(seconds) {
  return seconds >= 120 ? `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s` : `${seconds} s`;
}

/** @param {{kind: string, seconds?: number, message?: string, body: NextBody}} s */
function onStatus(s) {
  stopCountdown();
  if (s.kind === "waiting") {
    const until = Date.now() + (s.seconds ?? 0) * 1000;
    const tick = () => {
      const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
      setStatus(`${s.message || "The server is busy."} Trying again in ${waitText(left)}…`, { spinner: true });
      if (!left) stopCountdown();
    };
    tick();
    countdown = window.setInterval(tick, 1000);
    return;
  }
  const n = s.body.copilotResponses?.length ?? 0;
  const text =
    s.kind === "replaying"
      ? "The answer was lost: asking the server for it again…"
      : s.kind === "resyncing"
        ? "Checking the session on the server…"
        : n
          ? `Sending ${n === 1 ? "your verdict" : `${n} verdicts`}…`
          : s.body.userInput
            ? "Sending your message…"
            : "The agent is working…";
  setStatus(text, { spinner: true });
}

/**
 * Run the client (a drive or a resume) with the page busy, then show where it stopped.
 * @param {(signal: AbortSignal) => Promise<Outcome>} go
 * @param {NextBody} body what is being sent, for the placeholder
 */
async function run(go, body) {
  if (state.busy) return;
  clearError();
  clearHold(); // jobs: going on ends a failure
  const controller = new AbortController();
  state.controller = controller;
  setBusy(true);
  setPhase("working");
  $("continue").hidden = true;
  $("send-verdicts").hidden = true;
  if (!body.copilotResponses && !state.batch.length) showWaiting();
  try {
    const outcome = await go(controller.signal).finally(stopCountdown);
    if (outcome.kind === "review") showBatch(outcome.requests, { autoSend: false });
    else if (outcome.kind === "queued") {
      // The server held reviews this screen did not show (a stopped step that ran after all): show them.
      if (!state.batch.length && outcome.requests.length) showBatch(outcome.requests, { autoSend: false });
      showQueuedOutcome(outcome.input);
    }
    else if (outcome.kind === "idle") {
      showIdle();
      checkStanding(); // jobs: segments left unwritten are said, not a silent finish
    }
    else {
      state.stoppedCall = outcome.retry;
      setPhase("stopped");
      setStatus("Stopped. The last step may still have finished on the server.");
      $("continue").hidden = false;
      $("continue").focus({ preventScroll: true });
    }
  } catch (err) {
    const e = /** @type {any} */ (err);
    setPhase(state.batch.length ? "review" : "stopped");
    setStatus("");
    const retry = e.retry;
    showError(e, retry ? () => runLoop(retry.body, retry.key) : null);
    if (e.status === 402 || e.status === 502) checkStanding(); // jobs: failed, with what helps
    if (!state.batch.length) $("continue").hidden = false;
  } finally {
    clearForming();
    if (state.controller === controller) state.controller = null;
    setBusy(false);
    if (state.batch.length) updateReviewHead();
    syncStatusbar();
  }
}

/** @param {NextBody} body @param {string} [key] */
function runLoop(body, key) {
  return run((signal) => client.drive(body, { signal, key, onStep: applyStep, onStatus, onResync: adoptView, onDelta: showDelta }), body);
}

function resume() {
  const stopped = state.stoppedCall;
  state.stoppedCall = null;
  const sid = /** @type {string} */ (state.sessionId);
  return run(
    (signal) => client.resume(sid, stopped, { signal, onStep: applyStep, onStatus, onResync: adoptView, onDelta: showDelta }),
    stopped?.body ?? { sessionId: sid },
  );
}

/** A committed step: its messages once, progress, and after verdicts the refreshed document. @param {StepResponse} res @param {NextBody} body */
function applyStep(res, body) {
  clearForming(); // the committed answer replaces what was shown while it formed
  if (res.sessionId && res.sessionId !== state.sessionId) {
    state.sessionId = res.sessionId;
    history.replaceState(null, "", `#${res.sessionId}`);
  }
  const ar = res.agentResponse;
  state.actor = ar.actor;
  let messages = ar.messages || [];
  state.messageCount += messages.length;
  const queued = Boolean(res.queued || ar.queued);
  if (body.userInput && !queued) {
    // The step's messages may leave out the user's own input: show it from what was sent.
    const echoed = messages.some((m) => (m.parts || []).some((/** @type {any} */ p) => p.part_kind === "user-prompt" && p.content === body.userInput));
    if (!echoed) {
      messages = [{ kind: "request", parts: [{ part_kind: "user-prompt", content: body.userInput }] }, ...messages];
      state.messageCount += 1;
      state.localInputs.add(body.userInput);
    }
  } else if (state.localInputs.size) {
    messages = messages.map((m) => {
      const parts = (m.parts || []).filter((/** @type {any} */ p) => !(p.part_kind === "user-prompt" && state.localInputs.delete(p.content)));
      return parts.length === (m.parts || []).length ? m : { ...m, parts };
    });
  }
  if (messages.length) {
    state.messages.push(...messages);
    appendTimeline(messages);
  }
  if (ar.notice) appendNotice(ar.notice);
  if (Array.isArray(res.progress) && res.progress.length) {
    state.files = res.progress;
    renderFiles();
    renderProgress();
  }
  if (body.copilotResponses) {
    // Verdicts were committed: units were written, queued inputs went to the model.
    state.fresh = new Set(body.copilotResponses.filter((r) => r.status !== "reject").map((r) => r.tool.callId));
    const files = new Set(state.batch.map((b) => b.req.file_id).filter(Boolean));
    clearBatch();
    state.queued = [];
    renderQueued();
    showWaiting();
    for (const f of files.size ? files : [state.activeFileId]) refreshDocument(/** @type {string} */ (f));
    refreshMemory();
  }
}

/**
 * "Approve all shown": the server approves the shown proposals QA has no warning on, as one verdict
 * step; the cards left (and the next batch, when that step went on to the model) come back in its answer.
 * @param {{status?: string, q?: string, minEstimate?: number}} filter
 */
async function approveShown(filter) {
  const sid = state.sessionId;
  const fileId = state.activeFileId;
  if (state.busy || !sid || !fileId) return;
  clearError();
  const kept = store.get(`verdicts:${sid}`, null); // decisions not sent yet, on the cards left
  setBusy(true);
  try {
    const res = await api.approveShown(sid, fileId, filter);
    const note = `${res.approved} approved${res.skipped ? `, ${res.skipped} left for review (QA warnings)` : ""}.`;
    setBusy(false);
    if (!res.agentResponse) {
      setStatus(res.approved || res.skipped ? note : "No proposal in review is shown.");
      return;
    }
    const answer = /** @type {StepResponse} */ (/** @type {unknown} */ (res));
    applyStep(answer, { sessionId: sid, copilotResponses: [] });
    const ar = answer.agentResponse;
    if (ar.copilotRequests.length) {
      store.set(`verdicts:${sid}`, kept);
      showBatch(ar.copilotRequests, { autoSend: false });
    } else if (ar.actor === "agent") runLoop({ sessionId: sid });
    else showIdle();
    setStatus(note);
  } catch (err) {
    showError(err, null);
  } finally {
    if (state.busy && !state.controller) setBusy(false);
  }
}

function sendVerdicts() {
  if (state.busy || !state.batch.length || state.batch.some((b) => !b.decision)) return;
  runLoop({ sessionId: /** @type {string} */ (state.sessionId), copilotResponses: responses(state.batch) });
}

/* ---------- idle, waiting, queued ---------- */

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
      "Every part of the document has been reviewed. Download it, revise any segment in the list, or ask the agent for changes.",
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

/** @param {string} input */
function showQueuedOutcome(input) {
  if (!state.queued.includes(input)) state.queued.push(input);
  renderQueued();
  setPhase(state.batch.length ? "review" : "idle");
  setStatus("Message queued: the agent reads it with your verdicts on this batch.");
  if (state.batch.length) focusCard(state.current);
}

function renderQueued() {
  const list = $("queued");
  list.replaceChildren(
    ...state.queued.map((q) => h("li", { class: "queued-item" }, h("span", { class: "queued-label", text: "Queued" }), h("span", { dir: "auto", text: q }))),
  );
  list.hidden = state.queued.length === 0;
}

function setupComposer() {
  const ta = $("composer-text");
  const send = () => {
    const text = ta.value.trim();
    if (!text) return;
    if (state.busy) {
      setStatus("Wait for the agent's step to finish, then send your message.");
      return;
    }
    ta.value = "";
    autosize(ta);
    if (!state.batch.length) $("idle").hidden = true;
    runLoop({ sessionId: /** @type {string} */ (state.sessionId), userInput: text });
  };
  $("composer").addEventListener("submit", (/** @type {Event} */ e) => {
    e.preventDefault();
    send();
  });
  ta.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      send();
    } else if (e.key === "Escape") ta.blur();
  });
  ta.addEventListener("input", () => autosize(ta));
}

/* ---------- the document: preview and segments together ---------- */

/** @param {string | null} fileId @param {{source?: boolean}} [opts] */
async function refreshDocument(fileId, opts = {}) {
  await refreshPreview(fileId, opts);
  if (fileId === state.activeFileId) {
    refreshSegments();
    refreshScorecard();
  }
}

/* ---------- jobs: several languages, and where a session stands ---------- */

/** Start a job of the form's document for each of its languages, then show the job. */
async function startJob() {
  const content = $("doc-text").value;
  const name = $("doc-name").value.trim();
  const languages = formLanguages();
  const model = $("model-field").hidden ? "" : /** @type {HTMLSelectElement} */ ($("model")).value;
  const problem = !content.trim()
    ? ["doc-text", "Add a document: upload a file or paste its text."]
    : !name
      ? ["doc-name", "Give the document a file name, e.g. guide.md."]
      : null;
  if (problem) {
    $("start-error").textContent = problem[1];
    $("start-error").hidden = false;
    $(problem[0]).focus();
    return;
  }
  clearError();
  setBusy(true);
  setStatus(`Creating a session for each of ${languages.length} languages…`, { spinner: true });
  const instructions = $("instructions").value.trim();
  const id = await createJob({ name, content, languages, tags: languages.map(langTag), model: model || undefined, instructions }).finally(() => {
    setBusy(false);
    setStatus("");
  });
  if (!id) return;
  // An analysis made a draft session of the first language: the job made its own.
  const draft = startDraft;
  startDraft = null;
  if (draft?.sessionId) api.deleteSession(draft.sessionId).catch(() => {});
  store.set("lastLanguage", languages[0]);
  $("start-analysis").hidden = true;
  clearStartForm();
  history.pushState(null, "", `#${id}`);
  route();
}

/**
 * After a session is restored: a provider's wait is counted down and the session goes on by itself;
 * a failure or segments left are said (hold.js); a language opened from its job starts by itself.
 * @param {SessionView} data @param {boolean} fromJob
 */
function goOnFromStanding(data, fromJob) {
  const pending = (data.pendingCopilotRequests || []).length;
  if (data.state === "waiting" && !pending && state.actor === "agent") {
    const sid = data.id;
    const seconds = secondsUntil(data.retryAt, Date.now());
    const message = data.error || "The model provider asked to wait.";
    const hooks = { onStep: applyStep, onStatus, onResync: adoptView, onDelta: showDelta };
    run((signal) => client.waitThenResume(sid, seconds, { signal, message, ...hooks }), { sessionId: sid });
    return;
  }
  showHold(data);
  if (data.state !== "running" || pending || state.actor !== "agent") return;
  // A job's language still to be given the reviewer's instructions starts with them; one opened
  // from its job starts by itself.
  const input = firstInput(store, data.id);
  if (input) {
    firstInputSent(store, data.id);
    runLoop({ sessionId: data.id, userInput: input });
  } else if (fromJob) resume();
}

/** Re-read the session and say where it stands (failed, segments left) when it says so. */
async function checkStanding() {
  const sid = state.sessionId;
  if (!sid) return;
  try {
    const view = await api.session(sid);
    if (sid === state.sessionId && !state.busy) showHold(view);
  } catch {
    /* the next load says it */
  }
}

/* ---------- signing in and wiring ---------- */

function afterSignIn() {
  clearError();
  if (!modelsListed) setupModels();
  if (state.view === "session" && state.sessionId) openSession(state.sessionId);
  else if (state.view === "home") loadSessions(false);
  else route();
}

/** Signing out forgets what this browser kept about the user's sessions: titles and unsent verdicts. */
function forgetSessions() {
  try {
    const keys = Array.from({ length: localStorage.length }, (_, i) => localStorage.key(i));
    for (const key of keys) if (key && /^(title|verdicts|job|jobInput):|^jobs$/.test(key)) localStorage.removeItem(key);
  } catch {
    /* storage disabled: nothing was kept */
  }
}

async function init() {
  Object.assign(actions, {
    sendVerdicts,
    approveShown,
    refreshDocument: (/** @type {string | null} */ id) => refreshDocument(id),
    refreshMemory,
    openSession,
    highlightCurrent: () => {
      highlightCurrentInSource();
      highlightBatch();
    },
    batchChanged: () => {
      renderSource();
      if (state.segments.fileId) renderSegments();
    },
  });
  setupStartForm(startTranslation, () => {
    if (startDraft && !startDraft.fileId) startDraft.dirty = true;
    $("start-analysis").hidden = true; // what it showed may no longer be what Start would send
  });
  $("analyze").addEventListener("click", () => analyzeDocument());
  // jobs
  setupLanguages(() => ($("start-analysis").hidden = true));
  setupJobs(client, () => showHome());
  setupHold({ onSwitched: () => resume(), onAsk: (text) => runLoop({ sessionId: /** @type {string} */ (state.sessionId), userInput: text }) });
  setupComposer();
  setupDocument((show) => (show === "segments" ? highlightBatch() : show === "scorecard" && refreshScorecard()));
  setupScorecard();
  setupSegments();
  setupAutoApprove();
  setupMemory();
  setupSourceLanguage();
  document.addEventListener("keydown", onKeydown);
  trackHeight($("statusbar"), "--statusbar-h");
  $("stop").addEventListener("click", stopLoop);
  $("continue").addEventListener("click", () => {
    $("continue").hidden = true;
    resume();
  });
  $("error-retry").addEventListener("click", retryNow);
  $("error-dismiss").addEventListener("click", clearError);
  $("approve-all").addEventListener("click", () => !state.busy && approveAll());
  $("send-verdicts").addEventListener("click", sendVerdicts);
  $("sessions-more").addEventListener("click", () => loadSessions(true));
  $("sessions-refresh").addEventListener("click", () => loadSessions(false));
  $("history-more").addEventListener("click", loadFullHistory);
  $("delete-current").addEventListener("click", () => deleteSession(/** @type {string} */ (state.sessionId), $("session-title").textContent));
  $("download").addEventListener("click", (/** @type {Event} */ e) => {
    if (!signInRequired()) {
      afterPlainDownload(); // the link downloads by itself
      return;
    }
    e.preventDefault();
    exportFile("translation");
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
