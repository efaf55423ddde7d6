// @ts-check
// The HTTP API (API.md) without the DOM: every route as a function over an injected `fetch`, so the
// browser (web/js/api.js) and the Node tests (tests/js) use the same code.

/** @typedef {import("./types.js").NextBody} NextBody */
/** @typedef {import("./types.js").StepResponse} StepResponse */
/** @typedef {import("./types.js").SessionView} SessionView */
/** @typedef {import("./types.js").SegmentPage} SegmentPage */
/** @typedef {import("./types.js").Segment} Segment */
/** @typedef {import("./types.js").SegmentQuery} SegmentQuery */
/** @typedef {import("./types.js").ImportResult} ImportResult */
/** @typedef {import("./types.js").Warning} Warning */
/** @typedef {import("./types.js").Project} Project */
/** @typedef {import("./types.js").Comment} Comment */
/** @typedef {import("./sse.js").Delta} Delta */

import { canStream, readEvents } from "./sse.js";

/** An API or network failure, in words a person can act on. */
export class ApiError extends Error {
  /**
   * @param {string} message
   * @param {{status?: number, retryAfter?: number | null, aborted?: boolean, detail?: string, heldBy?: string | null, until?: string | null}} [details]
   */
  constructor(message, { status = 0, retryAfter = null, aborted = false, detail = "", heldBy = null, until = null } = {}) {
    super(message);
    this.name = "ApiError";
    /** 0: no answer (network error or aborted). */
    this.status = status;
    /** The server's own sentence (its `error`), "" when it gave none. */
    this.detail = detail;
    /** Seconds, when the server said. */
    this.retryAfter = retryAfter;
    this.aborted = aborted;
    /** A 409 of a project's session another member drives: who (their `sub`) and until when (ISO 8601). */
    this.heldBy = heldBy;
    this.until = until;
    /** @type {{body: NextBody, key: string} | null} what Retry should send (set by the step client) */
    this.retry = null;
  }

  /** 409, 503, 504 and network errors are worth a retry. */
  get retryable() {
    return !this.aborted && [0, 409, 503, 504].includes(this.status);
  }
}

/** A fresh Idempotency-Key (randomUUID needs a secure context; getRandomValues does not). */
export function newKey() {
  const c = globalThis.crypto;
  if (c.randomUUID && globalThis.isSecureContext !== false) return c.randomUUID();
  return Array.from(c.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

const EVENT_STREAM = "text/event-stream";

/** @type {Record<number, string>} */
const PLAIN = {
  400: "The server could not read the request.",
  401: "You are signed out. Sign in again, then retry.",
  402: "The session's budget is reached.",
  404: "This session, job or file no longer exists.",
  409: "The session changed in the meantime (another tab or a lost answer).",
  413: "The document is too large to upload.",
  422: "The server rejected the request.",
  502: "The translation model refused the request.",
  503: "The translation model is busy or unavailable.",
  504: "The step took too long and was cancelled; nothing was changed.",
};

/** Seconds from a Retry-After header (delta seconds or an HTTP date), or null. */
export function retryAfterSeconds(/** @type {string | null} */ value, now = Date.now()) {
  if (!value) return null;
  const secs = Number(value);
  if (Number.isFinite(secs)) return Math.max(0, secs);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : null;
}

/** The file name a Content-Disposition header gives, preferring RFC 6266 `filename*`. */
export function dispositionName(/** @type {string | null} */ header) {
  if (!header) return null;
  const star = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (star) {
    try {
      return decodeURIComponent(star[2].trim());
    } catch {
      /* a malformed encoding: fall back to the plain name */
    }
  }
  return /filename\s*=\s*"([^"]*)"/i.exec(header)?.[1] ?? /filename\s*=\s*([^;\s]+)/i.exec(header)?.[1] ?? null;
}

/**
 * @typedef {object} ApiOptions
 * @property {string | URL} base the API's base URL, ending in "api/"
 * @property {typeof fetch} fetch
 * @property {() => Promise<string | null>} [authorize] a bearer token, or null when none is needed
 * @property {() => void} [onSignedOut] called on a 401
 * @property {() => Record<string, string>} [headers] more headers for every request (the local "act as" identity)
 */

/**
 * @typedef {object} RequestOptions
 * @property {unknown} [body]
 * @property {AbortSignal} [signal]
 * @property {string} [key] the Idempotency-Key
 * @property {string} [accept]
 * @property {boolean} [raw] return the Response itself
 */

/** The API over `fetch`. @param {ApiOptions} options */
export function createApi({ base, fetch, authorize = async () => null, onSignedOut = () => {}, headers: more = () => ({}) }) {
  const root = new URL(String(base));
  /** @param {string} path */
  const url = (path) => new URL(path.replace(/^\//, ""), root).href;

  /**
   * @param {string} method
   * @param {string} path
   * @param {RequestOptions} [options]
   * @returns {Promise<any>}
   */
  async function request(method, path, { body, signal, key, accept = "application/json", raw = false } = {}) {
    /** @type {Record<string, string>} */
    const headers = { ...more(), Accept: accept };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (key) headers["Idempotency-Key"] = key;
    const token = await authorize();
    if (token) headers.Authorization = `Bearer ${token}`;
    let response;
    try {
      response = await fetch(url(path), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
        credentials: "same-origin",
        cache: "no-store",
      });
    } catch (err) {
      if (signal?.aborted || (err instanceof Error && err.name === "AbortError")) {
        throw new ApiError("Stopped.", { aborted: true });
      }
      throw new ApiError("Could not reach the server. Check the connection, then retry.");
    }
    if (response.ok) {
      if (raw) return response;
      if (response.status === 204) return null;
      const type = response.headers.get("Content-Type") || "";
      return type.includes("json") ? response.json() : response.text();
    }
    throw await errorOf(response);
  }

  /** @param {Response} response */
  async function errorOf(response) {
    /** @type {any} */
    let data = {};
    try {
      data = (await response.json()) || {};
    } catch {
      /* not JSON: keep the generic words */
    }
    const detail = typeof data.error === "string" ? data.error : "";
    return failure(response.status, detail, retryAfterSeconds(response.headers.get("Retry-After")), data);
  }

  /** @param {number} status @param {string} detail @param {number | null} retryAfter @param {any} [data] the error's body */
  function failure(status, detail, retryAfter, data = {}) {
    if (status === 401) onSignedOut();
    const heldBy = status === 409 && typeof data.heldBy === "string" ? data.heldBy : null;
    // A member refused (403) or a session another member holds (409): the server's own words say it all.
    const general = (heldBy || status === 403) && detail ? "" : PLAIN[status] || `The server answered with an error (HTTP ${status}).`;
    const message = detail && detail !== general ? `${general} ${detail}`.trim() : general;
    return new ApiError(message, { status, retryAfter, detail, heldBy, until: heldBy && typeof data.until === "string" ? data.until : null });
  }

  /**
   * One step; with `onDelta` (and a browser that can read a body as it arrives) as Server-Sent
   * Events: `onDelta` hears the model's answer forming, the `step` event is the answer. The server
   * may answer plain JSON anyway (behind API Gateway), which is taken as it is.
   * @param {NextBody} body
   * @param {{signal?: AbortSignal, key?: string, onDelta?: (delta: Delta) => void}} [opts]
   * @returns {Promise<StepResponse>}
   */
  async function next(body, { signal, key, onDelta } = {}) {
    if (!onDelta || !canStream()) return request("POST", "next", { body, signal, key });
    /** @type {Response} */
    const response = await request("POST", "next", { body, signal, key, accept: `${EVENT_STREAM}, application/json;q=0.9`, raw: true });
    const type = response.headers.get("Content-Type") || "";
    if (!type.includes(EVENT_STREAM) || !response.body) return response.json();
    /** @type {StepResponse | null} */
    let step = null;
    /** @type {ApiError | null} */
    let failed = null;
    try {
      await readEvents(response.body, (event) => {
        if (event.event === "delta") {
          try {
            onDelta(JSON.parse(event.data));
          } catch (err) {
            console.error("A streamed delta could not be shown", err); // the step goes on regardless
          }
        } else if (event.event === "step") step = JSON.parse(event.data);
        else if (event.event === "error") {
          const data = JSON.parse(event.data);
          const status = Number(data.status) || 500;
          // The stream's headers are long gone: a 503/504 waits the server's usual 2 s.
          failed = failure(status, typeof data.error === "string" ? data.error : "", status === 503 || status === 504 ? 2 : null, data);
        }
      });
    } catch (err) {
      if (signal?.aborted || (err instanceof Error && err.name === "AbortError")) throw new ApiError("Stopped.", { aborted: true });
      throw new ApiError("The connection broke before the step's answer arrived.");
    }
    if (failed) throw failed;
    if (step) return step;
    // Cut off before its last event: a lost answer (the same key replays it, or runs the step once).
    throw new ApiError("The step's answer was cut off before it ended.");
  }

  const enc = encodeURIComponent;
  /** @param {string} id */
  const s = (id) => `sessions/${enc(id)}`;
  /** @param {string} id @param {string} fileId */
  const f = (id, fileId) => `${s(id)}/files/${enc(fileId)}`;
  /** The memory's routes: the caller's own, or a project's. @param {string | null | undefined} project */
  const mem = (project) => (project ? `projects/${enc(project)}/memory` : "memory");
  /** @param {Record<string, string | number | null | undefined>} params */
  const query = (params) => {
    const q = Object.entries(params)
      .filter(([, v]) => v !== undefined && v !== null && v !== "")
      .map(([k, v]) => `${enc(k)}=${enc(String(v))}`)
      .join("&");
    return q ? `?${q}` : "";
  };

  /**
   * A download through fetch (a plain link cannot send a token, nor say what went wrong).
   * @param {string} path
   * @param {string} fallback
   */
  async function download(path, fallback) {
    /** @type {Response} */
    const response = await request("GET", path, { accept: "*/*", raw: true });
    const name = dispositionName(response.headers.get("Content-Disposition"));
    return { blob: await response.blob(), name: name || fallback };
  }

  return {
    url,
    next,
    /** @param {{targetLanguage?: string, model?: string, project?: string}} [body] */
    createSession: (body = {}) => request("POST", "sessions", { body }),
    /** The models a session may use, the default first. */
    models: () => request("GET", "models"),
    /** @param {string | null} [cursor] */
    listSessions: (cursor) => request("GET", `sessions${query({ limit: 20, cursor })}`),
    /** @param {string} id @returns {Promise<SessionView>} */
    session: (id) => request("GET", s(id)),
    /** @param {string} id @param {string | null} [cursor] */
    messages: (id, cursor) => request("GET", `${s(id)}/messages${query({ limit: 500, cursor })}`),
    /**
     * Change a session's settings (`sourceLanguage`, a BCP 47 tag; `model`, one of `models()`, used from the next
     * step; `autoApprove`, the routing threshold).
     * @param {string} id
     * @param {{sourceLanguage?: string, model?: string | null, autoApprove?: {minEstimate: number, sample?: number} | null}} body
     * @returns {Promise<SessionView>}
     */
    updateSession: (id, body) => request("PATCH", s(id), { body }),
    /** @param {string} id */
    deleteSession: (id) => request("DELETE", s(id)),
    /** @param {string} id @param {{name: string, content: string} | {name: string, contentBase64: string}} body */
    upload: (id, body) => request("POST", `${s(id)}/files`, { body }),
    /** @param {string} id @param {string} fileId */
    file: (id, fileId) => request("GET", f(id, fileId)),
    /** Segments, words, memory matches and the cost estimate. @param {string} id @param {string} fileId @param {string | null} [to] */
    analysis: (id, fileId, to) => request("GET", `${f(id, fileId)}/analysis${query({ to })}`),
    /** @param {string} id @param {string} fileId @returns {Promise<string>} */
    source: (id, fileId) => request("GET", `${f(id, fileId)}/source`, { accept: "text/*" }),
    /** @param {string} id @param {string} fileId */
    units: (id, fileId) => request("GET", `${f(id, fileId)}/units`),
    /** @param {string} id @param {string} fileId @param {SegmentQuery} [q] @returns {Promise<SegmentPage>} */
    segments: (id, fileId, q = {}) =>
      request("GET", `${f(id, fileId)}/segments${query({ status: q.status, q: q.q, cursor: q.cursor, limit: q.limit })}`),
    /**
     * The human revises a written unit. @param {string} id @param {string} fileId @param {number} start
     * @param {{translated_string: string, reason?: string, issue?: {category: string, severity: string}}} body @returns {Promise<Segment>}
     */
    revise: (id, fileId, start, body) => request("PUT", `${f(id, fileId)}/segments/${start}`, { body }),
    /**
     * Approve every pending proposal the filter shows whose QA is clean, as one verdict step.
     * `step: "review"`: a reviewer's approval of `translated` units (double review), which makes them `reviewed`.
     * @param {string} id @param {string} fileId @param {{status?: string, q?: string, minEstimate?: number}} filter @param {"review"} [step]
     * @returns {Promise<{approved: number, skipped: number} & Partial<StepResponse>>}
     */
    approveShown: (id, fileId, filter, step) => request("POST", `${f(id, fileId)}/approve`, { body: step ? { filter, step } : { filter } }),
    /**
     * The quality checks on a translation the human wrote. @param {string} id @param {string} fileId
     * @param {{source: string, translated_string: string, start?: number}} body @returns {Promise<{warnings: Warning[]}>}
     */
    qa: (id, fileId, body) => request("POST", `${f(id, fileId)}/qa`, { body }),
    /** The translation; `fill` puts the source into untranslated spans. @param {string} id @param {string} fileId */
    translationPath: (id, fileId, { fill = false } = {}) => `${f(id, fileId)}/translation${fill ? "?fill=source" : ""}`,
    /** `reviewed`: only the units a reviewer approved or edited (double review). @param {string} id @param {string} fileId @param {string} format @param {{reviewed?: boolean}} [opts] */
    exportPath: (id, fileId, format, { reviewed = false } = {}) => `${f(id, fileId)}/export${query({ format, reviewed: reviewed ? "true" : null })}`,
    /** MQM issues, score and post-edit distance. @param {string} id @param {string} fileId @param {number | null} [threshold] */
    scorecard: (id, fileId, threshold) => request("GET", `${f(id, fileId)}/scorecard${query({ threshold })}`),
    /** @param {string} id @param {string} fileId @param {number | null} [threshold] */
    scorecardCsvPath: (id, fileId, threshold) => `${f(id, fileId)}/scorecard${query({ format: "csv", threshold })}`,
    /** Who did what to each written unit, as CSV. @param {string} id @param {string} fileId */
    auditPath: (id, fileId) => `${f(id, fileId)}/audit${query({ format: "csv" })}`,
    download,
    /**
     * A job: the files translated into each language, a session each, ready to be driven (API.md "Jobs").
     * @param {import("./types.js").JobCreate} body @returns {Promise<{id: string, sessions: Record<string, string>}>}
     */
    createJob: (body) => request("POST", "jobs", { body }),
    /** Each language's session, progress, state, spending and estimate. @param {string} id @returns {Promise<import("./types.js").JobView>} */
    job: (id) => request("GET", `jobs/${enc(id)}`),
    /** The caller's projects with their role and languages in each. @returns {Promise<{projects: import("./types.js").ProjectEntry[]}>} */
    projects: () => request("GET", "projects"),
    /** @param {{name: string, review?: string, sourceLanguage?: string}} body @returns {Promise<Project>} */
    createProject: (body) => request("POST", "projects", { body }),
    /** @param {string} id @returns {Promise<Project>} */
    project: (id) => request("GET", `projects/${enc(id)}`),
    /** Name and settings (managers). @param {string} id @param {Record<string, unknown>} body @returns {Promise<Project>} */
    updateProject: (id, body) => request("PATCH", `projects/${enc(id)}`, { body }),
    /** Add a member or change their role and languages. @param {string} id @param {string} sub @param {{role: string, languages: string[]}} body @returns {Promise<Project>} */
    putMember: (id, sub, body) => request("PUT", `projects/${enc(id)}/members/${enc(sub)}`, { body }),
    /** @param {string} id @param {string} sub @returns {Promise<Project>} */
    removeMember: (id, sub) => request("DELETE", `projects/${enc(id)}/members/${enc(sub)}`),
    /** The project's auto-approval measured per estimate band, for one language. @param {string} id @param {string} language */
    quality: (id, language) => request("GET", `projects/${enc(id)}/quality${query({ language })}`),
    /** @param {string} id @param {string | null} [cursor] */
    projectSessions: (id, cursor) => request("GET", `projects/${enc(id)}/sessions${query({ limit: 20, cursor })}`),
    /** Let the session go (a member who stops driving; a manager: whoever holds it). @param {string} id */
    releaseClaim: (id) => request("DELETE", `${s(id)}/claim`),
    /** A segment's thread, oldest first. @param {string} id @param {string} fileId @param {string} segmentId @returns {Promise<Comment[]>} */
    thread: (id, fileId, segmentId) => request("GET", `${f(id, fileId)}/segments/${enc(segmentId)}/comments`),
    /** A string's neighbours in its file and its key in other languages (docs/api.md "Context for strings"). @param {string} id @param {string} fileId @param {string} segmentId */
    stringContext: (id, fileId, segmentId) => request("GET", `${f(id, fileId)}/segments/${enc(segmentId)}/context`),
    /** @param {string} id @param {string} fileId @param {string} segmentId @param {string} text @returns {Promise<Comment>} */
    postComment: (id, fileId, segmentId, text) => request("POST", `${f(id, fileId)}/segments/${enc(segmentId)}/comments`, { body: { text } }),
    /** @param {string} id @param {string} fileId @param {string} segmentId @param {string} commentId @param {boolean} resolved @returns {Promise<Comment>} */
    resolveComment: (id, fileId, segmentId, commentId, resolved) =>
      request("PATCH", `${f(id, fileId)}/segments/${enc(segmentId)}/comments/${enc(commentId)}`, { body: { resolved } }),
    /** The session's threads by file; `open`: only those with a comment not resolved. @param {string} id @param {boolean} [open] */
    threads: (id, open = false) => request("GET", `${s(id)}/comments${query({ open: open ? "true" : null })}`),
    // The memory: the caller's own, or with `project` the project's (the same routes under its path).
    /** The glossary and style notes; with `language` only those for it. @param {string | null} [project] @param {string | null} [language] */
    memory: (project, language) => request("GET", `${mem(project)}${query({ language })}`),
    /** A page of the translation memory for `language`. @param {{language: string, q?: string, cursor?: string | null, limit?: number}} params @param {string | null} [project] */
    tm: (params, project) => request("GET", `${mem(project)}/tm${query(params)}`),
    /** @param {string} entryId @param {string} target @param {string | null} [project] */
    updateTm: (entryId, target, project) => request("PUT", `${mem(project)}/tm/${enc(entryId)}`, { body: { target } }),
    /** @param {string} entryId @param {string | null} [project] */
    deleteTm: (entryId, project) => request("DELETE", `${mem(project)}/tm/${enc(entryId)}`),
    /** @param {{source: string, target: string, kind?: string, languages?: string}} entry @param {string | null} [project] */
    addGlossary: (entry, project) => request("POST", `${mem(project)}/glossary`, { body: entry }),
    /** @param {string} entryId @param {{source?: string, target?: string, kind?: string, text?: string, languages?: string}} body @param {string | null} [project] */
    updateMemory: (entryId, body, project) => request("PUT", `${mem(project)}/${enc(entryId)}`, { body }),
    /** @param {string} entryId @param {string | null} [project] */
    deleteMemory: (entryId, project) => request("DELETE", `${mem(project)}/${enc(entryId)}`),
    /** @param {string} format @param {string} content @param {string | null} [project] @returns {Promise<ImportResult>} */
    importMemory: (format, content, project) => request("POST", `${mem(project)}/import`, { body: { format, content } }),
    /** The memory's entries and glossary terms holding `q`, for one target language (a word or phrase search). @param {string} q @param {string} language @param {string | null} [project] */
    concordance: (q, language, project) => request("GET", `${mem(project)}/concordance${query({ q, language })}`),
    /** @param {string} format @param {string | null} [project] */
    memoryExportPath: (format, project) => `${mem(project)}/export${query({ format })}`,
  };
}

/** @typedef {ReturnType<typeof createApi>} Api */
