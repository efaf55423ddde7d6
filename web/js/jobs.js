// @ts-check
// The job view (`#j_…`): a job's languages with their state (a live countdown while one waits for its
// provider), segments left of the total, spent against the estimate, and a button to review each;
// while it shows, the languages are prepared up to their first review and the job is re-read. Also the
// home screen's list of the jobs this browser started, and starting a job from the start form.

import { api } from "./api.js";
import { $, h, store } from "./dom.js";
import {
  firstInput, firstInputSent, forgetJob, jobLanguages, jobOf, jobSummary, languageLabel, languageName, prepareLanguages, preparationText, progressLine,
  rememberedJobs, rememberJob, spendLine, stateLine,
} from "./jobmodel.js";
import { relativeTime } from "./sessions.js";
import { state } from "./state.js";
import { clearError, setPhase, setStatus, showError } from "./status.js";

/** @typedef {import("./types.js").JobView} JobView */
/** @typedef {import("./jobmodel.js").Preparation} Preparation */
/** @typedef {import("./client.js").StepClient} StepClient */

const POLL_MS = 4000;

/** The job on screen, its languages' preparation, and the timers and requests that serve it. */
const shown = {
  /** @type {string | null} */
  id: null,
  /** @type {JobView | null} */
  job: null,
  /** @type {Map<string, Preparation>} */
  prep: new Map(),
  /** @type {AbortController | null} */
  controller: null,
  tick: 0,
  poll: 0,
  token: 0,
};

/** @type {StepClient | null} */
let client = null;
let goHome = () => {};
/** @type {string | null} a session opened from the job view: its review starts by itself */
let opened = null;

/**
 * Wire the job view to the step client it prepares languages with, and to the home screen (a job
 * gone from the server leads there).
 * @param {StepClient} stepClient @param {() => void} home
 */
export function setupJobs(stepClient, home) {
  client = stepClient;
  goHome = home;
  $("job-refresh").addEventListener("click", () => shown.id && loadJob(shown.id, shown.token));
  $("job-languages").addEventListener("click", (/** @type {MouseEvent} */ e) => {
    const link = /** @type {HTMLElement | null} */ (e.target)?.closest?.("a.job-lang-open");
    if (link) opened = link.getAttribute("href")?.slice(1) ?? null;
  });
}

/** True once when the session was opened from the job view (its review may start by itself). @param {string} sessionId */
export function openedFromJob(sessionId) {
  const yes = opened === sessionId;
  opened = null;
  return yes;
}

/** The job's hash route (`#j_…`), or null. */
export function hashJob() {
  const m = /^#(j_[A-Za-z0-9_-]+)$/.exec(location.hash);
  return m ? m[1] : null;
}

/** Show the job `id`, re-read every few seconds while it shows. @param {string} id */
export function showJob(id) {
  leaveJob();
  clearError();
  state.view = "job";
  state.sessionId = null;
  state.loadToken++; // a session still loading is not shown over the job
  const token = ++shown.token;
  shown.id = id;
  shown.job = null;
  shown.prep = new Map();
  for (const v of ["view-home", "view-session"]) $(v).hidden = true;
  $("topbar-session").hidden = true;
  $("continue").hidden = true;
  $("shortcuts").hidden = true;
  $("view-job").hidden = false;
  renderHeading(id, null);
  $("job-languages").replaceChildren();
  $("job-summary").textContent = "";
  $("job-total").textContent = "";
  setPhase("job");
  setStatus("Loading the job…", { spinner: true });
  loadJob(id, token).then((job) => {
    if (!job || token !== shown.token) return;
    prepare(job, token);
    shown.tick = window.setInterval(() => shown.job && renderJob(shown.job), 1000);
    shown.poll = window.setInterval(() => loadJob(id, token), POLL_MS);
  });
}

/** The id of the job on screen, or null. */
export function shownJob() {
  return state.view === "job" ? shown.id : null;
}

/** Stop what serves the job view: its timers and its languages' preparation. */
export function leaveJob() {
  shown.token++;
  clearInterval(shown.tick);
  clearInterval(shown.poll);
  shown.controller?.abort();
  shown.controller = null;
  $("view-job").hidden = true;
}

/** @param {string} id @param {number} token @returns {Promise<JobView | null>} */
async function loadJob(id, token) {
  try {
    const job = await api.job(id);
    if (token !== shown.token) return null;
    if (!shown.job) renderHeading(id, job);
    shown.job = job;
    renderJob(job);
    return job;
  } catch (err) {
    if (token !== shown.token) return null;
    const e = /** @type {any} */ (err);
    if (e.status === 404) {
      forgetJob(store, id);
      leaveJob();
      history.replaceState(null, "", location.pathname + location.search);
      goHome();
      showError(new Error("This job does not exist any more (or belongs to someone else)."), null);
      return null;
    }
    setStatus("");
    showError(e, () => loadJob(id, token));
    return null;
  }
}

/** Drive every language that can go on up to its first review, while the view shows. @param {JobView} job @param {number} token */
async function prepare(job, token) {
  if (!client) return;
  const controller = new AbortController();
  shown.controller = controller;
  setStatus("Preparing each language's first proposals…", { spinner: true });
  await prepareLanguages(client, job, {
    signal: controller.signal,
    input: (sid) => firstInput(store, sid),
    onSent: (sid) => firstInputSent(store, sid),
    onLanguage: (p) => {
      if (token !== shown.token) return;
      shown.prep.set(p.tag, p);
      if (shown.job) renderJob(shown.job);
    },
  });
  if (token !== shown.token) return;
  shown.controller = null;
  setStatus("");
  await loadJob(job.id, token);
}

/** The job's title: its document and languages, as remembered, else as the server names them. @param {string} id @param {JobView | null} job */
function renderHeading(id, job) {
  const known = rememberedJobs(store).find((j) => j.id === id);
  const languages = job ? Object.keys(job.languages).map(languageName) : known?.languages ?? [];
  const text = known ? `${known.name} → ${languages.join(", ")}` : languages.length ? `Job → ${languages.join(", ")}` : "Job";
  $("job-heading").textContent = text;
  document.title = `${text} · Translation review`;
}

/** @param {JobView} job */
function renderJob(job) {
  const now = Date.now();
  setText($("job-summary"), jobSummary(job));
  setText($("job-total"), `The whole job: ${spendLine(job.spent, job.estimate)}.`);
  const list = $("job-languages");
  const items = jobLanguages(job).map((lang) => {
    const fresh = languageItem(lang, now);
    const old = /** @type {HTMLElement | null} */ (list.querySelector(`:scope > [data-lang="${CSS.escape(lang.tag)}"]`));
    return old ? patch(old, fresh) : fresh;
  });
  if (items.some((item, i) => list.children[i] !== item) || list.children.length !== items.length) list.replaceChildren(...items);
}

/** Set a text only when it changed (a live region announces every change). @param {HTMLElement} el @param {string} text */
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/**
 * `old` made to show what `fresh` shows, re-rendered each second without losing the focus: its button
 * (the link a keyboard user may be on) is kept and updated, the rest replaced when it changed.
 * @param {HTMLElement} old @param {HTMLElement} fresh
 */
function patch(old, fresh) {
  if (old.outerHTML === fresh.outerHTML) return old;
  const link = /** @type {HTMLElement} */ (old.querySelector(".job-lang-open"));
  const next = /** @type {HTMLElement} */ (fresh.querySelector(".job-lang-open"));
  for (const name of ["class", "href"]) link.setAttribute(name, next.getAttribute(name) ?? "");
  setText(link, next.textContent ?? "");
  old.dataset.state = fresh.dataset.state;
  // The link never leaves the document (a focused element that does loses the focus).
  for (const child of [...old.childNodes]) if (child !== link) child.remove();
  link.before(...[...fresh.childNodes].filter((c) => c !== next));
  return old;
}

/**
 * @param {import("./types.js").JobLanguage & {tag: string}} lang
 * @param {number} now
 */
function languageItem(lang, now) {
  const st = stateLine(lang, now);
  const p = progressLine(lang.progress);
  const name = languageLabel(lang.tag);
  const preparing = shown.prep.get(lang.tag);
  // A wait the server already shows (its state's countdown) is not said twice.
  const said = lang.state === "waiting" && preparing?.kind === "waiting";
  const prep = (lang.state === "running" || lang.state === "waiting") && !said ? preparationText(preparing, now) : "";
  const percent = Math.round(p.fraction * 100);
  const fill = h("div", { class: "progress-fill" });
  fill.style.width = `${percent}%`; // through the CSSOM: the page's CSP refuses style attributes
  return h(
    "li",
    { class: "job-lang", "data-lang": lang.tag, "data-state": lang.state },
    h(
      "div",
      { class: "job-lang-head" },
      h("span", { class: "job-lang-name", text: name }),
      h("span", { class: `job-state job-state-${st.tone}`, text: st.label }),
      st.detail && lang.state !== "complete" ? h("span", { class: "job-lang-detail", text: st.detail }) : null,
    ),
    h(
      "div",
      {
        class: `progress job-progress${p.total && p.written === p.total ? " complete" : ""}`,
        role: "progressbar",
        "aria-label": `${name}: segments written`,
        "aria-valuemin": "0",
        "aria-valuemax": "100",
        "aria-valuenow": String(percent),
      },
      h("div", { class: "progress-track" }, fill),
      h("span", { class: "progress-label", text: p.text }),
    ),
    h("p", { class: "job-lang-spend", text: spendLine(lang.spent, lang.estimate) }),
    prep ? h("p", { class: "job-lang-prep", text: prep }) : null,
    h("a", {
      class: `button ${lang.state === "complete" ? "button-secondary" : "button-primary"} job-lang-open`,
      href: `#${lang.sessionId}`,
      text: lang.state === "complete" ? `Open ${languageName(lang.tag)}` : `Review ${languageName(lang.tag)}`,
    }),
  );
}

/* ---------- home: the jobs this browser started ---------- */

/** List the jobs this browser remembers on the home screen. */
export function renderJobList() {
  const jobs = rememberedJobs(store);
  $("job-list").replaceChildren(
    ...jobs.map((j) =>
      h(
        "li",
        { class: "session-item", "data-job-id": j.id },
        h(
          "a",
          { class: "session-link", href: `#${j.id}` },
          h("span", { class: "session-name", text: `${j.name} → ${j.languages.join(", ")}` }),
          h(
            "span",
            { class: "session-meta" },
            h("time", { datetime: j.createdAt, title: new Date(j.createdAt).toLocaleString(), text: relativeTime(j.createdAt) }),
            ` · a job of ${j.languages.length} languages, a session each`,
          ),
        ),
      ),
    ),
  );
  $("jobs-block").hidden = jobs.length === 0;
}

/* ---------- the start form: a job for several languages ---------- */

/**
 * Create a job of the form's file (its upload body) for `languages` (names or tags) and remember it;
 * the server's refusal is thrown (an ApiError).
 * @param {{file: {name: string, content: string} | {name: string, contentBase64: string}, languages: string[], tags: (string | null)[], model?: string, instructions?: string, project?: string}} form
 * @returns {Promise<string>} the job's id
 */
export async function createJob({ file, languages, tags, model, instructions = "", project }) {
  const targetLanguages = languages.map((l, i) => tags[i] ?? l);
  const created = await api.createJob({ files: [file], targetLanguages, ...(model ? { model } : {}), ...(project ? { project } : {}) });
  // Named as the server understood them ("pl" → "Polish"), in its order.
  const named = Object.keys(created.sessions).map(languageName);
  const job = { id: created.id, name: file.name, languages: named, createdAt: new Date().toISOString() };
  rememberJob(store, job, created.sessions, { instructions });
  return created.id;
}

/** The review screen's way back to its job, shown when the session belongs to one. @param {string | null} sessionId */
export function showJobLink(sessionId) {
  const id = sessionId ? jobOf(store, sessionId) : null;
  const link = $("job-back");
  link.hidden = !id;
  if (id) link.setAttribute("href", `#${id}`);
}
