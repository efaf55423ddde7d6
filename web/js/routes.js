// @ts-check
// Where the page is: the hash route (`#s_…` a session, `#j_…` a job, else the home screen), the home
// screen, a session opened from the server's view, and one begun from the start form.

import { api } from "./api.js";
import { showAutoApprove } from "./autoapprove.js";
import { $, store } from "./dom.js";
import { hashJob, leaveJob, openedFromJob, renderJobList, showJob, shownJob } from "./jobs.js";
import { goOnFromStanding, runLoop, stopLoop } from "./loop.js";
import { enterFromView, enterSession, refreshDocument } from "./screen.js";
import { chosen, renderWorkspace } from "./projects.js";
import { letGo, showTeam } from "./sessionteam.js";
import { loadSessions } from "./sessions.js";
import { showSourceLanguage } from "./sourcelang.js";
import { listModels } from "./start.js";
import { state } from "./state.js";
import { clearError, setPhase, setStatus, showError } from "./status.js";

/** @typedef {import("./start.js").Started} Started */

function hashSession() {
  const m = /^#(s_[A-Za-z0-9_-]+)$/.exec(location.hash);
  return m ? m[1] : null;
}

/** Show what the address names, unless it shows already. */
export function route() {
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

/** The home screen: the start form, the jobs and sessions of this user. */
export function showHome() {
  stopLoop();
  letGo();
  showTeam({ project: null }); // the top bar's project and holder are a session's
  state.view = "home";
  state.sessionId = null;
  state.loadToken++;
  clearError();
  leaveJob();
  renderJobList();
  renderWorkspace();
  for (const [el, hidden] of /** @type {const} */ ([["view-home", false], ["view-session", true], ["topbar-session", true], ["continue", true], ["shortcuts", true]])) {
    $(el).hidden = hidden;
  }
  document.title = "Translation review";
  setPhase("home");
  setStatus("");
  loadSessions(false);
  listModels(); // once signed in: the home view is the first to need it
  const lang = $("target-lang");
  if (!lang.value) lang.value = store.get("lastLanguage", "") || "";
}

/** Open session `id` as the server has it, and go on from where it stands. @param {string} id */
export async function openSession(id) {
  stopLoop();
  if (id !== state.sessionId) letGo();
  leaveJob();
  clearError();
  const token = ++state.loadToken;
  setPhase("loading");
  setStatus("Loading the session…", { spinner: true });
  $("view-home").hidden = true;
  /** @type {import("./types.js").SessionView} */
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
  showTeam(data, id); // first: the session's panels read the project's memory
  enterFromView(id, data);
  goOnFromStanding(data, openedFromJob(id));
}

/** A session the start form made: shown at once with its upload, and the agent started. @param {Started} started */
export function beginSession({ sessionId, file, userInput, text, review }) {
  history.pushState(null, "", `#${sessionId}`);
  showTeam({ project: chosen()?.id ?? null, review }, sessionId); // started in the chosen workspace; first, as on opening
  enterSession(sessionId, {
    title: userInput,
    files: [{ ...file, progress: { translatedChars: 0, totalChars: file.chars, complete: false } }],
    messages: [],
    messageCount: 0,
  });
  if (text != null) state.sources.set(file.fileId, text);
  refreshDocument(file.fileId, { source: true });
  // The language the server detected from the upload (the step's answer does not carry it).
  api.session(sessionId).then((view) => sessionId === state.sessionId && (showSourceLanguage(view), showAutoApprove(view)), () => {});
  runLoop({ sessionId, userInput });
}
