// @ts-check
// The protocol, without the DOM: the doNext loop (API.md "The step"), one Idempotency-Key per request,
// the replay of a lost answer with its key, a resync from GET /api/sessions/{id} after a 409, and the
// retry of 503/504 after Retry-After. The UI (web/js/app.js) only renders what this decides.

import { ApiError, newKey as freshKey } from "./http.js";

/** @typedef {import("./types.js").NextBody} NextBody */
/** @typedef {import("./types.js").StepResponse} StepResponse */
/** @typedef {import("./types.js").SessionView} SessionView */
/** @typedef {import("./types.js").CopilotRequest} CopilotRequest */
/** @typedef {import("./types.js").QueuedInput} QueuedInput */
/** @typedef {import("./sse.js").Delta} Delta */

/**
 * What the client needs of the API (web/js/http.js createApi provides it).
 * @typedef {object} StepApi
 * @property {(body: NextBody, opts: {signal?: AbortSignal, key?: string, onDelta?: (delta: Delta) => void}) => Promise<StepResponse>} next
 * @property {(id: string) => Promise<SessionView>} session
 */

/**
 * Where the loop stopped: the human reviews `requests`; the human has the turn (`idle`); the input
 * was queued behind pending reviews (`queued`); the agent still has the turn because the human
 * stopped (`stopped`, with what Continue should send); the agent went on `steps` times in a row
 * without a proposal to review or any progress (`stalled`: a model whose calls keep being refused;
 * the client stops spending until the human says go on, with what Continue should send).
 * @typedef {{kind: "review", requests: CopilotRequest[], sessionId: string}
 *   | {kind: "idle", sessionId: string}
 *   | {kind: "queued", requests: CopilotRequest[], sessionId: string, input: string}
 *   | {kind: "stopped", sessionId: string | null, retry: {body: NextBody, key: string}}
 *   | {kind: "stalled", sessionId: string, steps: number, retry: {body: NextBody, key: string}}} Outcome
 */

/**
 * What the UI hears while the loop runs.
 * @typedef {object} Hooks
 * @property {(res: StepResponse, body: NextBody) => void} [onStep] a committed step (apply its messages once)
 * @property {(delta: Delta, body: NextBody) => void} [onDelta] the model's answer as it forms (a streamed step; nothing committed yet)
 * @property {(view: SessionView) => void} [onResync] the session as the server has it, after a conflict
 * @property {(status: {kind: "sending" | "working" | "waiting" | "replaying" | "resyncing", seconds?: number, message?: string, body: NextBody}) => void} [onStatus]
 */

/** @param {number} ms @param {AbortSignal} [signal] */
export function delay(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ApiError("Stopped.", { aborted: true }));
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new ApiError("Stopped.", { aborted: true }));
      },
      { once: true },
    );
  });
}

/** The text of a queued input as the session view lists it. @param {QueuedInput} q */
export function queuedText(q) {
  return typeof q === "string" ? q : q.text ?? q.userInput ?? q.content ?? "";
}

/** What a restored session asks of the UI: review, let the agent go on, or wait for the human. @param {SessionView} view */
export function restoredOutcome(view) {
  const pending = view.pendingCopilotRequests || [];
  if (pending.length) return /** @type {const} */ ({ kind: "review", requests: pending });
  return view.actor === "agent" ? /** @type {const} */ ({ kind: "agent" }) : /** @type {const} */ ({ kind: "idle" });
}

/** The files' written characters after a step, as one comparable text ("" when the step did not say). @param {StepResponse} res */
export function progressMark(res) {
  const files = Array.isArray(res.progress) ? res.progress : [];
  return files.map((f) => `${f.fileId}:${f.progress?.translatedChars ?? ""}`).join(",");
}

/** Drives the loop for one session at a time. */
export class StepClient {
  /**
   * `maxIdleSteps`: how many "continue" steps in a row may bring neither a proposal to review nor any
   * progress before the client stops going on by itself (the server has its own bound; this one keeps
   * a client from spending without end against a server that has none).
   * @param {StepApi} api
   * @param {{sleep?: typeof delay, newKey?: () => string, maxAttempts?: number, maxWaitSeconds?: number, defaultWaitSeconds?: number, maxIdleSteps?: number}} [options]
   */
  constructor(api, { sleep = delay, newKey = freshKey, maxAttempts = 3, maxWaitSeconds = 3600, defaultWaitSeconds = 2, maxIdleSteps = 6 } = {}) {
    this.api = api;
    this.maxIdleSteps = maxIdleSteps;
    this.sleep = sleep;
    this.newKey = newKey;
    this.maxAttempts = maxAttempts;
    this.maxWaitSeconds = maxWaitSeconds;
    this.defaultWaitSeconds = defaultWaitSeconds;
  }

  /**
   * Send `body`, then "continue" bodies while the agent has the turn; stop at the human's turn.
   * A failure that the client cannot recover is thrown as an ApiError whose `retry` says what to send.
   * @param {NextBody} body
   * @param {{signal?: AbortSignal, key?: string} & Hooks} [opts]
   * @returns {Promise<Outcome>}
   */
  async drive(body, opts = {}) {
    const { signal } = opts;
    let current = body;
    let key = opts.key ?? this.newKey();
    let failures = 0; // consecutive failed attempts of the current request
    let sessionId = body.sessionId ?? null;
    let idle = 0; // "continue" steps in a row with no proposal and no progress
    /** @type {string | null} */
    let mark = null;
    for (;;) {
      opts.onStatus?.({ kind: current.userInput || current.copilotResponses ? "sending" : "working", body: current });
      /** @type {StepResponse} */
      let res;
      try {
        const sent = current;
        const onDelta = opts.onDelta && ((/** @type {Delta} */ delta) => opts.onDelta?.(delta, sent));
        res = await this.api.next(current, { signal, key, onDelta });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (err.aborted) return { kind: "stopped", sessionId, retry: { body: current, key } };
        failures++;
        const next = await this.recover(err, current, key, failures, sessionId, opts);
        if ("outcome" in next) return next.outcome;
        if (next.reset) failures = 0;
        current = next.body;
        key = next.key;
        continue;
      }
      failures = 0;
      sessionId = res.sessionId || sessionId;
      opts.onStep?.(res, current);
      const ar = res.agentResponse;
      const requests = ar.copilotRequests || [];
      if ((res.queued || ar.queued) && current.userInput) {
        return { kind: "queued", requests, sessionId: /** @type {string} */ (sessionId), input: current.userInput };
      }
      if (requests.length) return { kind: "review", requests, sessionId: /** @type {string} */ (sessionId) };
      if (ar.actor !== "agent") return { kind: "idle", sessionId: /** @type {string} */ (sessionId) };
      const now = progressMark(res);
      const sent = current;
      idle = !sent.userInput && !sent.copilotResponses && (now === "" || now === mark) ? idle + 1 : 0;
      mark = now || mark;
      current = { sessionId: /** @type {string} */ (sessionId) };
      key = this.newKey();
      if (idle >= this.maxIdleSteps) {
        return { kind: "stalled", sessionId: /** @type {string} */ (sessionId), steps: idle, retry: { body: current, key } };
      }
    }
  }

  /**
   * Decide what a failed request leads to: the same request again (same key after a lost answer,
   * a new key after 503/504), a request rebuilt from the server's view (409), or an outcome.
   * @param {ApiError} err
   * @param {NextBody} body
   * @param {string} key
   * @param {number} failures
   * @param {string | null} sessionId
   * @param {{signal?: AbortSignal} & Hooks} opts
   * @returns {Promise<{body: NextBody, key: string, reset?: boolean} | {outcome: Outcome}>}
   */
  async recover(err, body, key, failures, sessionId, opts) {
    const giveUp = (/** @type {string} */ retryKey) => {
      err.retry = { body, key: retryKey };
      return err;
    };
    if (err.status === 0) {
      // The answer was lost: the same key and body replay the first answer, or run the step once.
      if (failures >= this.maxAttempts) throw giveUp(key);
      opts.onStatus?.({ kind: "replaying", body });
      await this.sleep(250 * failures, opts.signal);
      return { body, key };
    }
    if (err.status === 503 || err.status === 504) {
      // The session is unchanged: the same call, as a new attempt, after the server's wait. A 503
      // with Retry-After is a provider's throttle or quota: its whole wait (up to an hour), as often
      // as it takes, so a long job goes on by itself (Stop ends it); other failures, a few attempts.
      const throttled = err.status === 503 && err.retryAfter != null;
      if (!throttled && failures >= this.maxAttempts) throw giveUp(this.newKey());
      const seconds = Math.min(err.retryAfter ?? this.defaultWaitSeconds, this.maxWaitSeconds);
      opts.onStatus?.({ kind: "waiting", seconds, message: err.message, body });
      await this.sleep(seconds * 1000, opts.signal);
      return { body, key: this.newKey(), reset: throttled };
    }
    if (err.heldBy) {
      // Another member drives the session: nothing was stored; sending again changes nothing until
      // their hold ends, or a manager takes it over (`takeOver`, what Retry may add).
      throw giveUp(this.newKey());
    }
    if (err.status === 409 && sessionId && failures < this.maxAttempts) {
      opts.onStatus?.({ kind: "resyncing", body });
      let view;
      try {
        view = await this.api.session(sessionId);
      } catch {
        throw giveUp(this.newKey());
      }
      opts.onResync?.(view);
      return this.afterConflict(err, body, view);
    }
    throw giveUp(err.status === 409 ? this.newKey() : key);
  }

  /**
   * After a 409: send again what still applies to the server's state, or hand the state to the human.
   * @param {ApiError} err
   * @param {NextBody} body
   * @param {SessionView} view
   * @returns {{body: NextBody, key: string} | {outcome: Outcome}}
   */
  afterConflict(err, body, view) {
    const sessionId = view.id;
    const pending = view.pendingCopilotRequests || [];
    if (body.copilotResponses) {
      const ids = new Set(pending.map((r) => r.tool.callId));
      const still = body.copilotResponses.filter((r) => ids.has(r.tool.callId));
      const covered = pending.length > 0 && pending.every((r) => still.some((s) => s.tool.callId === r.tool.callId));
      if (covered) return { body: { sessionId, copilotResponses: still }, key: this.newKey() };
      if (pending.length) return { outcome: { kind: "review", requests: pending, sessionId } };
      // The verdicts were committed meanwhile (another tab, or our own lost answer).
      return view.actor === "agent"
        ? { body: { sessionId }, key: this.newKey() }
        : { outcome: { kind: "idle", sessionId } };
    }
    if (body.userInput) {
      // The input was not stored (a conflict changes nothing): send it again against the new state.
      return { body, key: this.newKey() };
    }
    if (pending.length) return { outcome: { kind: "review", requests: pending, sessionId } };
    if (view.actor === "agent") return { body: { sessionId }, key: this.newKey() };
    void err;
    return { outcome: { kind: "idle", sessionId } };
  }

  /**
   * A session the server holds `waiting` (its provider's throttle or quota, API.md "Sessions"): wait
   * until `seconds` have passed, counting down through `onStatus` as a 503's Retry-After does, then go
   * on as `resume` does. Stop during the wait is a `stopped` outcome whose Continue goes on at once.
   * @param {string} sessionId
   * @param {number} seconds
   * @param {{signal?: AbortSignal, message?: string} & Hooks} [opts]
   * @returns {Promise<Outcome>}
   */
  async waitThenResume(sessionId, seconds, opts = {}) {
    const wait = Math.max(0, Math.min(seconds, this.maxWaitSeconds));
    if (wait > 0) {
      opts.onStatus?.({ kind: "waiting", seconds: wait, message: opts.message, body: { sessionId } });
      try {
        await this.sleep(wait * 1000, opts.signal);
      } catch (err) {
        if (err instanceof ApiError && err.aborted) return { kind: "stopped", sessionId, retry: { body: { sessionId }, key: this.newKey() } };
        throw err;
      }
    }
    return this.resume(sessionId, null, opts);
  }

  /**
   * Continue after Stop (or a reload while the agent had the turn): re-read the session, then send
   * the stopped request again with its own key (a replay if it ran), or "continue".
   * @param {string} sessionId
   * @param {{body: NextBody, key: string} | null} stopped
   * @param {{signal?: AbortSignal} & Hooks} [opts]
   * @returns {Promise<Outcome>}
   */
  async resume(sessionId, stopped, opts = {}) {
    opts.onStatus?.({ kind: "resyncing", body: stopped?.body ?? { sessionId } });
    const view = await this.api.session(sessionId);
    opts.onResync?.(view);
    // The stopped request goes again with its own key: the server answers its first answer if it ran.
    if (stopped) return this.drive(stopped.body, { ...opts, key: stopped.key });
    const state = restoredOutcome(view);
    if (state.kind === "review") return { kind: "review", requests: state.requests, sessionId };
    if (state.kind === "agent") return this.drive({ sessionId }, opts);
    return { kind: "idle", sessionId };
  }
}
