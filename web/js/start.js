// @ts-check
// Starting a translation from the start form. Analyze and Start share one draft: a session and its
// upload, made once and reused while the document, name and model stay the same (or by a retry). A
// draft whose upload is refused is deleted at once, and so is one that a changed document replaces,
// so no empty session is left behind (the API has no upload without a session, so the session comes
// first and goes again). One language starts that session; several start a job (web/js/jobs.js).

import { analysisView, modelLabel, totalEstimate } from "./analysis.js";
import { api } from "./api.js";
import { $, h, store } from "./dom.js";
import { createJob } from "./jobs.js";
import { chosen } from "./projects.js";
import { state } from "./state.js";
import { clearError, setBusy, setStatus, showError } from "./status.js";
import { clearStartForm, formDocument, formProblem, setupStartForm, showFormProblem } from "./startform.js";
import { formLanguages, langTag, setupLanguages } from "./startlangs.js";
import { uploadBody, uploadRefusal } from "./upload.js";

/** @typedef {import("./startform.js").FormDocument} FormDocument */
/** @typedef {{fileId: string, name: string, chars: number}} Uploaded */
/** @typedef {{sessionId: string, file: Uploaded, userInput: string, text: string | null, review: "single" | "pretranslate"}} Started */
/** @typedef {{sessionId: string | null, doc: FormDocument, model: string, project: string | null, pretranslate: boolean, file?: Uploaded}} Draft */

/** @type {Draft | null} */
let draft = null;
/** What starting leads to: the new session's screen, or the job's. */
let hooks = { onStarted: (/** @type {Started} */ _started) => {}, onJob: (/** @type {string} */ _id) => {} };

const chosenModel = () => ($("model-field").hidden ? "" : /** @type {HTMLSelectElement} */ ($("model")).value);
/** @param {FormDocument} a @param {FormDocument} b */
const sameDocument = (a, b) => a.name === b.name && ("text" in a ? "text" in b && a.text === b.text : "base64" in b && a.base64 === b.base64);

/** Delete a draft session nothing was started in (best effort: a failure leaves what it leaves). @param {string | null} id */
function dropSession(id) {
  if (id) api.deleteSession(id).catch(() => {});
}

/**
 * The form's draft, uploaded; null, with what went wrong shown, when the form is incomplete or the
 * server refused (a refused upload deletes its session).
 * @param {string} status
 */
async function uploadedDraft(status) {
  const language = formLanguages()[0] ?? ""; // a job's draft is its first language's
  const problem = formProblem({ language: true }, language);
  if (problem) {
    showFormProblem(...problem);
    return null;
  }
  store.set("lastLanguage", language);
  const doc = formDocument();
  const model = chosenModel();
  const project = chosen()?.id ?? null; // the workspace's: a project's session uses its memory
  const pretranslate = /** @type {HTMLInputElement} */ ($("pretranslate")).checked;
  if (!draft || !sameDocument(draft.doc, doc) || draft.model !== model || draft.project !== project || draft.pretranslate !== pretranslate) {
    // Another document, model, workspace or way of reviewing is another session (it prices the analysis and translates).
    dropSession(draft?.sessionId ?? null);
    draft = { sessionId: null, doc, model, project, pretranslate };
  }
  const mine = draft;
  clearError();
  setBusy(true);
  setStatus(status, { spinner: true });
  try {
    if (!mine.sessionId) {
      const tag = langTag(language);
      const where = mine.project ? { project: mine.project } : {};
      const review = mine.pretranslate ? { review: "pretranslate" } : {};
      mine.sessionId = (await api.createSession({ ...(tag ? { targetLanguage: tag } : {}), ...(model ? { model } : {}), ...where, ...review })).id;
    }
    if (!mine.file) {
      const sid = /** @type {string} */ (mine.sessionId);
      try {
        mine.file = await api.upload(sid, uploadBody(doc.name, doc));
      } catch (err) {
        mine.sessionId = null;
        dropSession(sid);
        refused(err, () => uploadedDraft(status), "upload");
        return null;
      }
    }
    return mine;
  } catch (err) {
    refused(err, () => uploadedDraft(status), "session");
    return null;
  } finally {
    setBusy(false);
    setStatus("");
  }
}

/**
 * A refusal in plain words at the form (the document's upload: what could not be read; the session or
 * the job: what the server said of the form, such as a language it does not know); anything else,
 * such as a busy server, in the error box with Retry when it helps.
 * @param {unknown} err @param {() => void} retry @param {"upload" | "session" | "job"} what
 */
function refused(err, retry, what) {
  const e = /** @type {any} */ (err);
  if (e.status !== 413 && e.status !== 422) showError(e, e.retryable ? retry : null);
  else if (what === "upload") showFormProblem("doc-file", uploadRefusal(formDocument().name, e));
  else {
    const said = e.status === 413 ? uploadRefusal(formDocument().name, e) : e.detail || e.message;
    showFormProblem("target-lang", `${what === "job" ? "The job was not created" : "The translation was not started"}: ${said}`);
  }
}

let modelsListed = false;
/** The start form's choice of model, shown when the service offers more than one (asked until it answers). */
export async function listModels() {
  if (modelsListed) return;
  modelsListed = true;
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
  $("model-field").hidden = false;
}

/** Analyze: the file's segments, words, memory matches and the cost, shown before Start. */
async function analyze() {
  if (state.busy) return;
  const ready = await uploadedDraft("Analyzing the document…");
  if (!ready) return;
  try {
    const sid = /** @type {string} */ (ready.sessionId);
    const fileId = /** @type {Uploaded} */ (ready.file).fileId;
    const languages = formLanguages().map((l) => langTag(l) ?? l);
    const found = await Promise.all(languages.map((language) => api.analysis(sid, fileId, language)));
    if (found.length === 1) showAnalysis(analysisView(found[0]));
    else {
      // The first language's matches; the estimate of every language, added up.
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
    ...view.rows.map(([label, segments, words]) => h("tr", {}, h("th", { scope: "row" }, label), h("td", {}, segments), h("td", {}, words))),
  );
  $("analysis-estimate").textContent = view.estimate;
  $("start-analysis").hidden = false;
}

/** Start: one language's session (uploaded, then handed to `onStarted`), or a job of several. */
async function start() {
  if (state.busy) return;
  if (formLanguages().length > 1) return startJob();
  const instructions = $("instructions").value.trim();
  const ready = await uploadedDraft("Uploading the document…");
  if (!ready) return;
  const language = formLanguages()[0] ?? "";
  const name = ready.doc.name;
  const userInput = `Translate ${name} into ${language}.${instructions ? ` Instructions: ${instructions}` : ""}`;
  draft = null;
  $("start-analysis").hidden = true;
  clearStartForm();
  const sessionId = /** @type {string} */ (ready.sessionId);
  store.set(`title:${sessionId}`, userInput);
  const text = "text" in ready.doc ? ready.doc.text : null;
  const review = ready.pretranslate ? "pretranslate" : "single";
  hooks.onStarted({ sessionId, file: /** @type {Uploaded} */ (ready.file), userInput, text, review });
}

/** Start a job of the form's document for each of its languages, then show the job. */
async function startJob() {
  const problem = formProblem({ language: false });
  if (problem) {
    showFormProblem(...problem);
    return;
  }
  const languages = formLanguages();
  const doc = formDocument();
  clearError();
  setBusy(true);
  setStatus(`Creating a session for each of ${languages.length} languages…`, { spinner: true });
  const instructions = $("instructions").value.trim();
  /** @type {string} */
  let id;
  try {
    const model = chosenModel();
    id = await createJob({ file: uploadBody(doc.name, doc), languages, tags: languages.map(langTag), model: model || undefined, instructions, project: chosen()?.id });
  } catch (err) {
    refused(err, () => startJob(), "job");
    return;
  } finally {
    setBusy(false);
    setStatus("");
  }
  // An analysis made a draft session of the first language: the job made its own.
  dropSession(draft?.sessionId ?? null);
  draft = null;
  store.set("lastLanguage", languages[0]);
  $("start-analysis").hidden = true;
  clearStartForm();
  hooks.onJob(id);
}

/** Wire the start form. @param {typeof hooks} given what starting leads to */
export function setupStart(given) {
  hooks = given;
  const changed = () => ($("start-analysis").hidden = true); // what it showed may no longer be what Start sends
  setupStartForm(start, changed);
  setupLanguages(changed);
  $("model").addEventListener("change", changed);
  $("analyze").addEventListener("click", () => analyze());
}
