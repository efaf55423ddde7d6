// @ts-check
// The batch under review, without the DOM: each card's request and the human's decision, what the
// review head says, what Send sends, and which verdicts survive a reload.

/** @typedef {import("./types.js").CopilotRequest} CopilotRequest */
/** @typedef {import("./types.js").CopilotResponse} CopilotResponse */
/** @typedef {import("./types.js").Warning} Warning */

import { shownWarnings } from "./glossary.js";

/**
 * @typedef {import("./mqm.js").MqmIssue} MqmIssue
 * @typedef {{status: "approve"} | {status: "refined", text: string, issue?: MqmIssue} | {status: "reject", reason?: string, issue?: MqmIssue}} Decision
 * @typedef {{req: CopilotRequest, warnings: Warning[], decision: Decision | null, mode: "view" | "edit" | "reject", el: HTMLElement | null, editWarnings?: Warning[]}} Item
 * (`warnings`: what the card shows of the proposal's warnings, glossary.js shownWarnings)
 */

/** The words of a warning, whichever form the server sends. @param {Warning} w */
export function warningText(w) {
  return typeof w === "string" ? w : w.message;
}

/**
 * A batch from the server's requests, with the verdicts kept from before a reload.
 * @param {CopilotRequest[]} requests
 * @param {Record<string, Decision>} saved
 * @returns {Item[]}
 */
export function makeBatch(requests, saved = {}) {
  return requests.map((req) => ({
    req,
    warnings: shownWarnings(req.warnings || [], req.translate_string),
    decision: saved[req.tool.callId] || null,
    mode: "view",
    el: null,
  }));
}

/** What the review head shows and offers. @param {Item[]} batch */
export function summary(batch) {
  const total = batch.length;
  const decided = batch.filter((b) => b.decision).length;
  const open = batch.filter((b) => b.mode !== "view").length;
  const warned = batch.filter((b) => (!b.decision && b.warnings.length) || (b.editWarnings || []).length).length;
  const allDecided = total > 0 && decided === total;
  return {
    total,
    decided,
    warned,
    allDecided,
    /** Send is offered whenever every card is decided and none is open (e.g. after a reload). */
    canSend: allDecided && open === 0,
    canApproveAll: total > 1 && decided < total,
  };
}

/** The verdicts as the API wants them. @param {Item[]} batch @returns {CopilotResponse[]} */
export function responses(batch) {
  return batch.map(({ req, decision }) => {
    if (!decision) throw new Error("every card needs a decision before sending");
    /** @type {CopilotResponse} */
    const r = { tool: { name: req.tool.name, callId: req.tool.callId }, status: decision.status };
    if (decision.status === "refined") r.translated_string = decision.text;
    if (decision.status === "reject" && decision.reason) r.reason = decision.reason;
    if (decision.status !== "approve" && decision.issue) r.issue = decision.issue;
    return r;
  });
}

/** The decisions to keep across a reload, by callId. @param {Item[]} batch @returns {Record<string, Decision> | null} */
export function savable(batch) {
  /** @type {Record<string, Decision>} */
  const saved = {};
  for (const item of batch) if (item.decision) saved[item.req.tool.callId] = item.decision;
  return Object.keys(saved).length ? saved : null;
}

/**
 * An edit's decision: unchanged text is an approval (an issue is only said of an edit).
 * @param {CopilotRequest} req @param {string} text @param {MqmIssue} [issue] @returns {Decision}
 */
export function editDecision(req, text, issue) {
  if (text === req.translate_string) return { status: "approve" };
  return issue ? { status: "refined", text, issue } : { status: "refined", text };
}

/** The next undecided card after `i`, wrapping, or -1. @param {Item[]} batch @param {number} i */
export function nextUndecided(batch, i) {
  const n = batch.length;
  for (let step = 1; step <= n; step++) {
    const k = (i + step) % n;
    if (!batch[k].decision && batch[k].mode === "view") return k;
  }
  return -1;
}

/** Whether the human's own text on a card of the batch drew a warning (then Send is offered, not automatic). @param {Item[]} batch */
export function editWarned(batch) {
  return batch.some((b) => b.decision?.status === "refined" && (b.editWarnings || []).length > 0);
}

/** The cards approve-all should ask about: undecided ones whose proposal warns, and edits whose text warns. @param {Item[]} batch */
export function warnedCards(batch) {
  return batch.filter((b) => (!b.decision && b.warnings.length) || (b.decision?.status === "refined" && (b.editWarnings || []).length));
}
