// @ts-check
// The reviewer's UI, wired: each module is given, at its setup, the actions it may trigger in the
// others (nothing is looked up in a shared registry). Where the page is (routes.js), the start form
// (start.js), the session screen (screen.js), the loop (loop.js) and the views they drive.

import { setupActAs } from "./actas.js";
import { api } from "./api.js";
import { localServer, signInRequired, startAuth } from "./auth.js";
import { setupAutoApprove } from "./autoapprove.js";
import { approve, approveAll, focusCard, openMode, setupCards } from "./cards.js";
import { relabelCards, remarkTerms } from "./cardview.js";
import { StepClient } from "./client.js";
import { openConcordance } from "./concordance.js";
import { setupComments } from "./comments.js";
import { $, trackHeight } from "./dom.js";
import { setupHold } from "./hold.js";
import { setupJobs } from "./jobs.js";
import { setupKeys } from "./keys.js";
import { approveShown, resume, runLoop, sendInput, sendVerdicts, setupLoop, stopLoop } from "./loop.js";
import { refreshMemory, setupMemory } from "./memory.js";
import { afterPlainDownload, exportFile, highlightCurrentInSource, renderSource, setupDocument, showInSource } from "./preview.js";
import { beginSession, openSession, route, showHome } from "./routes.js";
import { refreshScorecard, setupScorecard } from "./scorecard.js";
import { refreshDocument, restore, setupComposer } from "./screen.js";
import { recheckProject, setupProjects } from "./projects.js";
import { highlightBatch, refreshSegments, renderSegments, setupSegments, showThread } from "./segments.js";
import { letGo, setupSessionTeam } from "./sessionteam.js";
import { deleteSession, loadSessions } from "./sessions.js";
import { setupSourceLanguage } from "./sourcelang.js";
import { listModels, setupStart } from "./start.js";
import { state } from "./state.js";
import { clearError, retryNow, setPhase, setStatus } from "./status.js";
import { loadFullHistory } from "./timeline.js";

const client = new StepClient(api);

/** The batch changed (a new batch, or a verdict): the source and the segment list mark its spans again. */
function batchChanged() {
  renderSource();
  if (state.segments.fileId) renderSegments();
}

/** The current card changed: the source and the segment list show it. */
function currentChanged() {
  highlightCurrentInSource();
  highlightBatch();
}

/** Signed in (again): what the page shows is read again with the new identity. */
function afterSignIn() {
  clearError();
  listModels();
  if (state.view === "session" && state.sessionId) openSession(state.sessionId);
  else if (state.view === "home") loadSessions(false);
  else route();
}

/** Signing out forgets what this browser kept about the user's sessions: titles and unsent verdicts. */
function forgetSessions() {
  try {
    const keys = Array.from({ length: localStorage.length }, (_, i) => localStorage.key(i));
    for (const key of keys) if (key && /^(title|verdicts|job|jobInput|workspace):|^jobs$/.test(key)) localStorage.removeItem(key);
  } catch {
    /* storage disabled: nothing was kept */
  }
}

function wireViews() {
  setupCards({ sendVerdicts, batchChanged, currentChanged, showFile: (fileId) => refreshDocument(fileId) });
  setupDocument({
    onTab: (show) => (show === "segments" ? highlightBatch() : show === "scorecard" && refreshScorecard()),
    refreshDocument: (fileId) => refreshDocument(fileId),
    focusCard: (index) => focusCard(index),
    sourceLoaded: relabelCards,
  });
  setupSegments({
    focusCard: (index) => focusCard(index),
    showInSource,
    revised: (fileId) => {
      refreshDocument(fileId);
      refreshMemory();
    },
    approveShown,
  });
  setupKeys({
    approve,
    approveAll,
    edit: (i) => openMode(i, "edit"),
    reject: (i) => openMode(i, "reject"),
    focus: (i) => focusCard(i),
    concordance: (i) => state.batch[i]?.el && openConcordance(/** @type {HTMLElement} */ (state.batch[i].el)),
  });
  setupMemory({ glossaryChanged: remarkTerms });
  setupComments({ changed: refreshSegments, showSegment: showThread });
  setupSessionTeam(() => state.segments.fileId && renderSegments()); // the role decides the review queue
  setupScorecard();
  setupSourceLanguage();
  setupAutoApprove({
    // A changed threshold applies to later proposals: the screen shows the session as the server has it now.
    changed: (view) => {
      if (state.busy) return;
      restore(view);
      refreshDocument(state.activeFileId);
      const idle = !(view.pendingCopilotRequests || []).length && view.actor === "agent" && view.state === "running";
      if (idle) runLoop({ sessionId: view.id }); // the shown cards were decided: the agent goes on
    },
  });
}

function wireSession() {
  setupLoop(client);
  setupComposer(sendInput);
  setupHold({
    onSwitched: () => resume(),
    onAsk: sendInput,
    onInstruct: () => $("composer-text").focus(),
    onContinue: () => resume(),
  });
  $("stop").addEventListener("click", () => {
    stopLoop();
    letGo(); // a member who stops lets a project's session go at once
  });
  $("continue").addEventListener("click", () => {
    $("continue").hidden = true;
    resume();
  });
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
}

function wireHome() {
  setupStart({
    onStarted: beginSession,
    onJob: (id) => {
      history.pushState(null, "", `#${id}`);
      route();
    },
  });
  setupJobs(client, () => showHome());
  setupProjects({ changed: () => loadSessions(false) });
  $("sessions-more").addEventListener("click", () => loadSessions(true));
  $("sessions-refresh").addEventListener("click", () => loadSessions(false));
}

async function init() {
  wireHome();
  wireSession();
  wireViews();
  trackHeight($("statusbar"), "--statusbar-h");
  $("error-retry").addEventListener("click", retryNow);
  $("error-dismiss").addEventListener("click", clearError);
  window.addEventListener("hashchange", route);
  window.addEventListener("popstate", route);
  if (await startAuth({ onSignedIn: afterSignIn, onSignOut: forgetSessions })) {
    // Local mode: "act as" another member; the page is read again as them.
    setupActAs({ local: localServer(), changed: () => recheckProject().then(afterSignIn) });
    route();
  } else {
    setPhase("signed-out");
    $("shortcuts").hidden = true;
    setStatus("Sign in to see and continue your translations.");
  }
}

init();
