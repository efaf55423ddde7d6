// @ts-check
// The loop on screen: the step client (client.js) driven with the page busy, each committed step
// applied once (messages, progress, and after verdicts the refreshed document), where it stopped shown
// (cards, idle, queued, stopped by the human, or stalled: steps without a proposal or progress), the
// status strip while it runs, "Approve all shown", and where a restored session stands (waiting out
// its provider, failed or stopped with what helps, segments left, a job's language starting by itself).

import { api } from "./api.js";
import { clearBatch, showBatch, updateReviewHead } from "./cards.js";
import { $, store } from "./dom.js";
import { clearForming, showDelta } from "./forming.js";
import { clearHold, showHold, showStall } from "./hold.js";
import { firstInput, firstInputSent, secondsUntil, waitText } from "./jobmodel.js";
import { refreshMemory } from "./memory.js";
import { renderFiles, renderProgress } from "./preview.js";
import { responses } from "./review.js";
import { clearClaimed, drove, showClaimed, showHeld as showHolder } from "./sessionteam.js";
import { adoptView, refreshDocument, renderQueued, showIdle, showQueuedOutcome, showWaiting } from "./screen.js";
import { state } from "./state.js";
import { clearError, setBusy, setPhase, setStatus, showError, syncStatusbar } from "./status.js";
import { appendNotice, appendTimeline } from "./timeline.js";

/** @typedef {import("./types.js").NextBody} NextBody */
/** @typedef {import("./types.js").SessionView} SessionView */
/** @typedef {import("./types.js").StepResponse} StepResponse */
/** @typedef {import("./types.js").FileInfo} FileInfo */
/** @typedef {import("./client.js").Outcome} Outcome */
/** @typedef {import("./client.js").StepClient} StepClient */

/** @type {StepClient} */
let client;

/** Drive the loop with `stepClient`. @param {StepClient} stepClient */
export function setupLoop(stepClient) {
  client = stepClient;
}

/** What the client reports back while it runs. */
const hooks = () => ({
  onStep: applyStep,
  onStatus,
  onResync: (/** @type {SessionView} */ view) => {
    adoptView(view);
    showHolder(view);
  },
  onDelta: showDelta,
});

let countdown = 0;
/** The clock shown while the client waits out a provider's Retry-After. */
function stopCountdown() {
  clearInterval(countdown);
  countdown = 0;
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

/** Stop the step in flight (its answer may still commit on the server). */
export function stopLoop() {
  if (state.controller) state.controller.abort();
}

/**
 * Run the client (a drive or a resume) with the page busy, then show where it stopped.
 * @param {(signal: AbortSignal) => Promise<Outcome>} go
 * @param {NextBody} body what is being sent, for the placeholder
 */
async function run(go, body) {
  if (state.busy) return;
  clearError();
  clearHold(); // going on ends a failure
  clearClaimed();
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
    } else if (outcome.kind === "idle") {
      showIdle();
      checkStanding(); // segments left unwritten, or a session the server stopped, are said
    } else if (outcome.kind === "stalled") {
      state.stoppedCall = outcome.retry;
      setPhase("stopped");
      $("cards").replaceChildren();
      setStatus(`Paused: ${outcome.steps} steps in a row brought no proposal and no progress.`);
      pauseStalled(outcome.steps);
    } else {
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
    if (e.heldBy) showClaimed(e, (b) => runLoop(b)); // another member drives it: said above the cards
    else showError(e, retry ? () => runLoop(retry.body, retry.key) : null);
    if (!e.aborted) checkStanding(); // failed or stopped on the server: with what helps
    if (!state.batch.length) $("continue").hidden = false;
  } finally {
    clearForming();
    if (state.controller === controller) state.controller = null;
    setBusy(false);
    if (state.batch.length) updateReviewHead();
    syncStatusbar();
  }
}

/** Send `body` (with `key` when it is a retry) and go on while the agent has the turn. @param {NextBody} body @param {string} [key] */
export function runLoop(body, key) {
  return run((signal) => client.drive(body, { signal, key, ...hooks() }), body);
}

/** Continue after Stop, a stall or a reload: what was stopped, else "continue". */
export function resume() {
  const stopped = state.stoppedCall;
  state.stoppedCall = null;
  const sid = /** @type {string} */ (state.sessionId);
  return run((signal) => client.resume(sid, stopped, { signal, ...hooks() }), stopped?.body ?? { sessionId: sid });
}

/** Send the human's message. @param {string} text */
export function sendInput(text) {
  return runLoop({ sessionId: /** @type {string} */ (state.sessionId), userInput: text });
}

/** @type {string[]} the files whose units the session's routing wrote since the last re-read */
const routed = [];

/** The files whose translated characters changed between two progress lists. @param {FileInfo[]} before @param {FileInfo[]} after */
function writtenSince(before, after) {
  const had = new Map(before.map((f) => [f.fileId, f.progress?.translatedChars ?? 0]));
  return after.filter((f) => (f.progress?.translatedChars ?? 0) !== had.get(f.fileId)).map((f) => f.fileId);
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
  drove(); // a committed step is the caller's: the session is theirs to drive now
  const messages = stepMessages(ar.messages || [], body, Boolean(res.queued || ar.queued));
  if (messages.length) {
    state.messages.push(...messages);
    appendTimeline(messages);
  }
  const notice = /** @type {{notice?: string}} */ (ar).notice;
  if (notice) appendNotice(notice);
  if (Array.isArray(res.progress) && res.progress.length) {
    if (!body.copilotResponses) routed.push(...writtenSince(state.files, res.progress));
    state.files = res.progress;
    renderFiles();
    renderProgress();
  }
  if (ar.actor === "user" && routed.length) {
    // Units the session's routing wrote with no verdict (auto-approval, a pre-translation), re-read once
    // the run hands back to the person rather than at every step of it.
    for (const f of new Set(routed.splice(0))) refreshDocument(f);
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
 * A step's messages as the timeline shows them, each once: the user's own input from what was sent
 * when the step leaves it out, and not again when a later step echoes it.
 * @param {any[]} messages @param {NextBody} body @param {boolean} queued
 */
function stepMessages(messages, body, queued) {
  state.messageCount += messages.length;
  if (body.userInput && !queued) {
    const echoed = messages.some((m) => (m.parts || []).some((/** @type {any} */ p) => p.part_kind === "user-prompt" && p.content === body.userInput));
    if (echoed) return messages;
    state.messageCount += 1;
    state.localInputs.add(body.userInput);
    return [{ kind: "request", parts: [{ part_kind: "user-prompt", content: body.userInput }] }, ...messages];
  }
  if (!state.localInputs.size) return messages;
  return messages.map((m) => {
    const parts = (m.parts || []).filter((/** @type {any} */ p) => !(p.part_kind === "user-prompt" && state.localInputs.delete(p.content)));
    return parts.length === (m.parts || []).length ? m : { ...m, parts };
  });
}

/**
 * "Approve all shown": the server approves the shown proposals QA has no warning on, as one verdict
 * step; the cards left (and the next batch, when that step went on to the model) come back in its answer.
 * With `step` "review", a reviewer approves the `translated` units shown (double review): they become
 * `reviewed`; nothing goes to the model.
 * @param {{status?: string, q?: string, minEstimate?: number, key?: string}} filter @param {"review"} [step]
 */
export async function approveShown(filter, step) {
  const sid = state.sessionId;
  const fileId = state.activeFileId;
  if (state.busy || !sid || !fileId) return;
  clearError();
  const kept = store.get(`verdicts:${sid}`, null); // decisions not sent yet, on the cards left
  setBusy(true);
  try {
    const res = await api.approveShown(sid, fileId, filter, step);
    const left = /** @type {{remaining?: number}} */ (res).remaining ?? 0; // the review step approves 500 at most a request
    const note = `${res.approved} approved${res.skipped ? `, ${res.skipped} left for review (QA warnings)` : ""}${left ? `, ${left} more to approve: press it again` : ""}.`;
    setBusy(false);
    if (!res.agentResponse) {
      setStatus(res.approved || res.skipped ? note : step ? "No translated unit is shown." : "No proposal in review is shown.");
      if (step && res.approved) refreshDocument(fileId); // reviewed now: the list says so
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

/** Send the batch's verdicts once every card is decided. */
export function sendVerdicts() {
  if (state.busy || !state.batch.length || state.batch.some((b) => !b.decision)) return;
  runLoop({ sessionId: /** @type {string} */ (state.sessionId), copilotResponses: responses(state.batch) });
}

/**
 * After a session is restored: a provider's wait is counted down and the session goes on by itself;
 * a failure, a stop or segments left are said (hold.js), and nothing goes on by itself then; a
 * language opened from its job starts by itself.
 * @param {SessionView} data @param {boolean} fromJob
 */
export function goOnFromStanding(data, fromJob) {
  const pending = (data.pendingCopilotRequests || []).length;
  if (data.state === "waiting" && !pending && state.actor === "agent") {
    const sid = data.id;
    const seconds = secondsUntil(data.retryAt, Date.now());
    const message = data.error || "The model provider asked to wait.";
    run((signal) => client.waitThenResume(sid, seconds, { signal, message, ...hooks() }), { sessionId: sid });
    return;
  }
  showHold(data);
  if ((data.state === "failed" || data.state === "stopped") && !pending) showHeld();
  if (data.state !== "running" || pending || state.actor !== "agent") return;
  // A job's language still to be given the reviewer's instructions starts with them; one opened
  // from its job starts by itself.
  const input = firstInput(store, data.id);
  if (input) {
    firstInputSent(store, data.id);
    runLoop({ sessionId: data.id, userInput: input });
  } else if (fromJob) resume();
}

/** A session the server holds (failed or stopped): its note says what helps; nothing goes on by itself. */
function showHeld() {
  $("cards").replaceChildren();
  $("continue").hidden = true;
  setPhase("stopped");
  setStatus("Stopped: nothing more is spent until you act (see the note above the cards).");
}

/**
 * The client paused the loop (steps without a proposal or progress): the server's own stop when it
 * has one, else the client's pause, with the session's model so another one is offered.
 * @param {number} steps
 */
async function pauseStalled(steps) {
  const sid = state.sessionId;
  /** @type {SessionView | null} */
  let view = null;
  try {
    view = await api.session(/** @type {string} */ (sid));
  } catch {
    /* said as the client's pause */
  }
  if (sid !== state.sessionId || state.busy) return;
  if (view && (view.state === "failed" || view.state === "stopped")) {
    showHold(view);
    showHeld();
  } else showStall(steps, view?.model);
}

/** Re-read the session and say where it stands (failed, stopped, segments left) when it says so. */
export async function checkStanding() {
  const sid = state.sessionId;
  if (!sid) return;
  try {
    const view = await api.session(sid);
    if (sid === state.sessionId && !state.busy) showHold(view);
  } catch {
    /* the next load says it */
  }
}
