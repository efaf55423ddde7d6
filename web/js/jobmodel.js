// @ts-check
// Jobs (API.md "Jobs") without the DOM: the start form's languages, each language's line in the job
// view (state with its countdown, segments left, spent against the estimate), the jobs this browser
// remembers, the preparation of a job's languages for review, and what the review screen says of a
// session that waits for its provider, failed, or ended with segments not written.

import { ApiError } from "./http.js";

/** @typedef {import("./types.js").JobView} JobView */
/** @typedef {import("./types.js").JobLanguage} JobLanguage */
/** @typedef {import("./types.js").JobFigures} JobFigures */
/** @typedef {import("./types.js").SessionView} SessionView */
/** @typedef {import("./client.js").StepClient} StepClient */
/** @typedef {{get: (key: string, fallback?: any) => any, set: (key: string, value: any) => void}} Store */
/** @typedef {{id: string, name: string, languages: string[], createdAt: string}} RememberedJob */

const num = new Intl.NumberFormat();

/**
 * The target languages the start form names: every field's text, split at commas or semicolons,
 * trimmed, each once (ignoring case), in order.
 * @param {string[]} values
 */
export function splitLanguages(values) {
  /** @type {string[]} */
  const out = [];
  for (const value of values) {
    for (const part of value.split(/[,;]/)) {
      const t = part.trim();
      if (t && !out.some((o) => o.toLowerCase() === t.toLowerCase())) out.push(t);
    }
  }
  return out;
}

/** "German" for "de"; the tag itself when the runtime cannot name it. @param {string} tag */
export function languageName(tag) {
  try {
    return new Intl.DisplayNames(["en"], { type: "language", fallback: "none" }).of(tag) || tag;
  } catch {
    return tag;
  }
}

/** "German (de)" for "de"; the tag alone when the runtime cannot name it. @param {string} tag */
export function languageLabel(tag) {
  const name = languageName(tag);
  return name !== tag ? `${name} (${tag})` : tag;
}

/** Whole seconds from `now` until `iso` (0 when past or unreadable). @param {string | null | undefined} iso @param {number} now */
export function secondsUntil(iso, now) {
  const at = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : 0;
}

/** "45 s", "2 min 05 s", "1 h 02 min". @param {number} seconds */
export function waitText(seconds) {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
  return s >= 120 ? `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s` : `${s} s`;
}

/** "3 segments are not translated yet." @param {number} n */
export function leftText(n) {
  return n === 1 ? "1 segment is not translated yet." : `${num.format(n)} segments are not translated yet.`;
}

/**
 * A language's state as the job view shows it: a short label, the words after it, and a tone
 * (the CSS class's suffix). `waiting` counts down to `retryAt` from `now`.
 * @param {JobLanguage} lang
 * @param {number} now
 * @returns {{label: string, detail: string, tone: "run" | "wait" | "bad" | "ok"}}
 */
export function stateLine(lang, now) {
  if (lang.state === "complete") return { label: "Complete", detail: "Every segment is written.", tone: "ok" };
  if (lang.state === "failed") {
    return { label: "Failed", detail: lang.error || "The last step failed.", tone: "bad" };
  }
  if (lang.state === "stopped") {
    return { label: "Stopped", detail: lang.error || "Stopped until someone looks at it.", tone: "bad" };
  }
  if (lang.state === "waiting") {
    const left = secondsUntil(lang.retryAt, now);
    const detail = left > 0 ? `The provider asked to wait: it goes on in ${waitText(left)}.` : "The provider's wait is over: it goes on with the next step.";
    return { label: "Waiting", detail, tone: "wait" };
  }
  return { label: "Running", detail: "", tone: "run" };
}

/**
 * Segments left of the total, and the written fraction for the bar.
 * @param {import("./types.js").JobProgress} p
 */
export function progressLine(p) {
  const total = Math.max(0, p.segments || 0);
  const left = Math.min(total, Math.max(0, p.segmentsLeft ?? total));
  const text = !total ? "No segments" : left === 0 ? `All ${num.format(total)} segments written` : `${num.format(left)} of ${num.format(total)} segments left`;
  return { written: total - left, total, fraction: total ? (total - left) / total : 0, text };
}

/** @param {number} usd */
function dollars(usd) {
  return `$${usd.toFixed(usd > 0 && usd < 1 ? 4 : 2)}`;
}

/**
 * Spent against the estimate: in dollars when the model is priced (and not free), else in tokens.
 * @param {JobFigures} spent
 * @param {JobFigures} estimate
 */
export function spendLine(spent, estimate) {
  if (estimate.usd != null && (estimate.usd > 0 || (spent.usd ?? 0) > 0)) {
    return `${dollars(spent.usd ?? 0)} spent of about ${dollars(estimate.usd)} estimated`;
  }
  const used = spent.inputTokens + spent.outputTokens;
  const expected = estimate.inputTokens + estimate.outputTokens;
  const free = estimate.usd === 0 ? " (a free model)" : estimate.usd == null ? " (no price known for this model)" : "";
  return `${num.format(used)} of about ${num.format(expected)} tokens${free}`;
}

/** The job's languages in the order the server lists them, each with its tag. @param {JobView} job */
export function jobLanguages(job) {
  return Object.entries(job.languages).map(([tag, lang]) => ({ tag, ...lang }));
}

/** "2 of 3 languages complete · 1 waiting". @param {JobView} job */
export function jobSummary(job) {
  const langs = jobLanguages(job);
  const count = (/** @type {string} */ s) => langs.filter((l) => l.state === s).length;
  const parts = [`${count("complete")} of ${langs.length} ${langs.length === 1 ? "language" : "languages"} complete`];
  for (const s of ["waiting", "failed", "stopped"]) if (count(s)) parts.push(`${count(s)} ${s}`);
  return parts.join(" · ");
}

/* ---------- what this browser remembers ---------- */

const JOBS = "jobs";
const KEEP = 50;

/** The jobs started in this browser, newest first. @param {Store} store @returns {RememberedJob[]} */
export function rememberedJobs(store) {
  const list = store.get(JOBS, []);
  return Array.isArray(list) ? list.filter((j) => j && typeof j.id === "string") : [];
}

/**
 * Remember a job (its name, languages and sessions), the job of each of its sessions, and the
 * reviewer's instructions each session is still to be given (a job's task carries none).
 * @param {Store} store
 * @param {RememberedJob} job
 * @param {Record<string, string>} sessions
 * @param {{instructions?: string}} [opts]
 */
export function rememberJob(store, job, sessions, { instructions = "" } = {}) {
  store.set(JOBS, [job, ...rememberedJobs(store).filter((j) => j.id !== job.id)].slice(0, KEEP));
  for (const sid of Object.values(sessions)) {
    store.set(`job:${sid}`, job.id);
    if (instructions) store.set(`jobInput:${sid}`, `Instructions: ${instructions}`);
  }
}

/** The input a job's session is still to be given first (the instructions), or null. @param {Store} store @param {string} sessionId @returns {string | null} */
export function firstInput(store, sessionId) {
  const text = store.get(`jobInput:${sessionId}`);
  return typeof text === "string" && text ? text : null;
}

/** The first input was given. @param {Store} store @param {string} sessionId */
export function firstInputSent(store, sessionId) {
  store.set(`jobInput:${sessionId}`, null);
}

/** The job a session belongs to, when this browser started it. @param {Store} store @param {string} sessionId @returns {string | null} */
export function jobOf(store, sessionId) {
  const id = store.get(`job:${sessionId}`);
  return typeof id === "string" ? id : null;
}

/** Forget a job (gone from the server). @param {Store} store @param {string} id @param {string[]} [sessionIds] */
export function forgetJob(store, id, sessionIds = []) {
  store.set(JOBS, rememberedJobs(store).filter((j) => j.id !== id));
  for (const sid of sessionIds) {
    store.set(`job:${sid}`, null);
    store.set(`jobInput:${sid}`, null);
  }
}

/* ---------- preparing the languages ---------- */

/**
 * What happens to a language while the job view prepares it: its step under way, a provider's wait,
 * proposals ready for review, the human's turn, or an error.
 * (`until`: when a provider's wait ends, in ms since the epoch).
 * @typedef {{tag: string, kind: "working" | "waiting" | "ready" | "idle" | "stopped" | "error", seconds?: number, until?: number, count?: number, message?: string}} Preparation
 */

/**
 * Drive each language that is running or waiting up to its first review, all at once, so the reviewer
 * finds proposals waiting (a language whose provider waits goes on after its wait). Languages whose
 * session already has proposals cost no model request (the client reads the session first). A language
 * with an input still to give (`input`: the reviewer's instructions) starts with it; `onSent` hears it went.
 * @param {StepClient} client
 * @param {JobView} job
 * @param {{signal?: AbortSignal, now?: number, onLanguage?: (p: Preparation) => void, input?: (sessionId: string) => string | null, onSent?: (sessionId: string) => void}} [opts]
 * @returns {Promise<Preparation[]>}
 */
export async function prepareLanguages(client, job, { signal, now = Date.now(), onLanguage = () => {}, input = () => null, onSent = () => {} } = {}) {
  const todo = jobLanguages(job).filter((l) => l.state === "running" || l.state === "waiting");
  return Promise.all(
    todo.map(async (lang) => {
      /** @param {Omit<Preparation, "tag">} p */
      const say = (p) => {
        const found = { tag: lang.tag, ...p };
        onLanguage(found);
        return found;
      };
      /** @type {import("./client.js").Hooks & {signal?: AbortSignal, message?: string}} */
      const hooks = {
        signal,
        message: lang.error || undefined,
        onStatus: (s) =>
          say(
            s.kind === "waiting"
              ? { kind: "waiting", seconds: s.seconds, until: Date.now() + (s.seconds ?? 0) * 1000, message: s.message }
              : { kind: "working" },
          ),
      };
      try {
        const first = input(lang.sessionId);
        const out = first
          ? await client.drive({ sessionId: lang.sessionId, userInput: first }, hooks)
          : lang.state === "waiting"
            ? await client.waitThenResume(lang.sessionId, secondsUntil(lang.retryAt, now), hooks)
            : await client.resume(lang.sessionId, null, hooks);
        if (first && out.kind !== "stopped") onSent(lang.sessionId);
        if (out.kind === "review") return say({ kind: "ready", count: out.requests.length });
        if (out.kind === "stalled") {
          return say({ kind: "error", message: "Paused: the agent is not getting anywhere (its proposals keep being refused). Open it to act." });
        }
        return say({ kind: out.kind === "stopped" ? "stopped" : "idle" });
      } catch (err) {
        if (err instanceof ApiError && err.aborted) return say({ kind: "stopped" });
        return say({ kind: "error", message: err instanceof Error ? err.message : String(err) });
      }
    }),
  );
}

/** The job view's words for a language being prepared, a wait counted down to `now`. @param {Preparation | undefined} p @param {number} [now] */
export function preparationText(p, now = Date.now()) {
  if (!p) return "";
  if (p.kind === "working") return "Preparing proposals…";
  if (p.kind === "waiting") {
    const left = p.until != null ? Math.max(0, Math.ceil((p.until - now) / 1000)) : p.seconds ?? 0;
    return `The provider is busy: trying again in ${waitText(left)}…`;
  }
  if (p.kind === "ready") return `${p.count === 1 ? "1 proposal" : `${num.format(p.count ?? 0)} proposals`} ready for review`;
  if (p.kind === "idle") return "Waiting for you";
  if (p.kind === "error") return p.message || "Could not prepare it.";
  return "";
}

/* ---------- the review screen ---------- */

/**
 * What the review screen says on load of a session the server holds, or that has segments left:
 * `waiting` with the seconds until its provider's retry time; `failed` with the error and what helps;
 * `left` with how many segments are not written. Null for a running or complete session.
 * @param {Partial<SessionView>} view
 * @param {{now: number, models?: number}} opts `models`: how many models are configured
 * @returns {{kind: "waiting", seconds: number, text: string} | {kind: "failed" | "stopped", text: string, hint: string} | {kind: "left", text: string} | null}
 */
export function sessionNote(view, { now, models = 1 }) {
  if (view.state === "waiting") {
    const seconds = secondsUntil(view.retryAt, now);
    return { kind: "waiting", seconds, text: view.error || "The model provider asked to wait before the next step." };
  }
  if (view.state === "failed" || view.state === "stopped") {
    const stopped = view.state === "stopped";
    const fix = models > 1 ? "switch the model below, or send the agent an instruction" : stopped ? "send the agent an instruction" : "check the provider's key, quota or the session's budget";
    const hint = `Nothing more is spent until you act: ${fix}, then continue.`;
    const text = view.error || (stopped ? "The agent's proposals kept being refused." : "The last step failed.");
    return { kind: stopped ? "stopped" : "failed", text, hint };
  }
  if (view.state !== "complete" && (view.segmentsLeft ?? 0) > 0 && (view.pendingCopilotRequests ?? []).length === 0 && view.actor !== "agent") {
    return { kind: "left", text: leftText(/** @type {number} */ (view.segmentsLeft)) };
  }
  return null;
}
