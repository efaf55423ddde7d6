// @ts-check
// The review's flow over its cards (built by cardview.js): one per copilot request, approve / edit /
// reject, next and previous, approve all (asking first when a card has a warning), the checks on an
// edit, and the review head with its counts and Send.

import { describeEdit, diffWords, renderDiff } from "./diff.js";
import { shownWarnings } from "./glossary.js";
import { $, autosize, confirmDialog, h, num, store } from "./dom.js";
import { api } from "./api.js";
import { editDecision, editWarned, makeBatch, nextUndecided, savable, summary, warnedCards, warningText } from "./review.js";
import { state } from "./state.js";
import { reveal } from "./reveal.js";
import { setPhase, setStatus } from "./status.js";
import { issueText, pickedIssue, setIssue } from "./mqm.js";
import { asText, blankEdit, editedText, fillForms, sourceFor } from "./entries.js";
import { buildCard } from "./cardview.js";
import { askKeepCodes, codesOff, copySource, isCopySource, redrawCodeBoxes } from "./chipedit.js";
import { editBalanceText } from "./chips.js";
import { openConcordance } from "./concordance.js";

/** @typedef {import("./types.js").CopilotRequest} CopilotRequest */

/** @type {Record<string, string>} */
const VERDICT_TEXT = { approve: "Approved", refined: "Edited", reject: "Rejected" };

/**
 * What the cards trigger outside themselves (given by `setupCards`): send the decided batch, say the
 * batch or its current card changed (the source and the segment list mark them), show another file.
 * @typedef {{sendVerdicts: () => void, batchChanged: () => void, currentChanged: () => void, showFile: (fileId: string) => void}} CardActions
 */
/** @type {CardActions} */
let actions = { sendVerdicts: () => {}, batchChanged: () => {}, currentChanged: () => {}, showFile: () => {} };

/** Wire the review head's buttons and what the cards trigger. @param {CardActions} given */
export function setupCards(given) {
  actions = given;
  $("approve-all").addEventListener("click", () => !state.busy && approveAll());
  $("send-verdicts").addEventListener("click", () => actions.sendVerdicts());
}

const savedVerdicts = () => store.get(`verdicts:${state.sessionId}`, {}) || {};
const saveVerdicts = () => store.set(`verdicts:${state.sessionId}`, savable(state.batch));

/** Forget the batch (its verdicts were committed). */
export function clearBatch() {
  store.set(`verdicts:${state.sessionId}`, null);
  state.batch = [];
  $("cards").replaceChildren();
  $("approve-all").hidden = true;
  $("send-verdicts").hidden = true;
}

/** Show `requests` as cards, with the verdicts kept from before a reload. @param {CopilotRequest[]} requests @param {{autoSend: boolean}} opts */
export function showBatch(requests, { autoSend }) {
  state.batch = makeBatch(requests.map(asText), savedVerdicts());
  const cards = $("cards");
  cards.replaceChildren();
  state.batch.forEach((item, i) => {
    item.el = buildCard(item, i, state.batch.length, { onClick: onCardClick, onKey: onCardKey, onEdit: updateLiveDiff });
    cards.append(item.el);
    updateCard(i);
  });
  $("idle").hidden = true;
  $("continue").hidden = true;
  setPhase("review");
  updateReviewHead();
  actions.batchChanged();
  const target = state.batch[0].req.file_id;
  if (target && target !== state.activeFileId && state.files.some((f) => f.fileId === target)) {
    state.activeFileId = target;
    actions.showFile(target);
  }
  const first = state.batch.findIndex((b) => !b.decision);
  if (first !== -1) focusCard(first);
  else if (autoSend) actions.sendVerdicts();
  else {
    // Every card was decided before a reload: offer Send, focused, rather than a dead end.
    focusCard(0, { focus: false });
    $("send-verdicts").focus({ preventScroll: true });
  }
}

/** The counts, Approve all and Send. */
export function updateReviewHead() {
  const s = summary(state.batch);
  $("review-count").textContent = s.total ? `${num.format(s.decided)} of ${num.format(s.total)} decided` : "";
  $("approve-all").hidden = !s.canApproveAll;
  $("send-verdicts").hidden = !s.canSend || state.busy;
  const open = s.total - s.decided;
  setStatus(
    s.total && open
      ? `Waiting for your review: ${open === 1 ? "1 unit" : `${num.format(open)} units`}.`
      : s.total
        ? "All units decided: send the verdicts to go on."
        : "",
  );
}

/** @param {HTMLElement} card @param {HTMLElement} target */
function onCardClick(card, target) {
  const i = Number(card.dataset.index);
  const chip = /** @type {HTMLElement | null} */ (target.closest("[data-reason]"));
  if (chip) {
    const ta = /** @type {HTMLTextAreaElement} */ (card.querySelector(".reason-text"));
    ta.value = ta.value.trim() ? `${ta.value.trim()}; ${chip.dataset.reason}` : chip.dataset.reason || "";
    ta.focus();
    return;
  }
  const action = /** @type {HTMLElement | null} */ (target.closest("[data-action]"))?.dataset.action;
  if (!action) {
    if (!target.closest("textarea, button, a") && i !== state.current) focusCard(i);
    return;
  }
  if (state.busy) return;
  if (action === "approve") approve(i);
  else if (action === "edit") openMode(i, "edit");
  else if (action === "reject") openMode(i, "reject");
  else if (action === "save-edit") commitEdit(i);
  else if (action === "save-reject") commitReject(i);
  else if (action === "cancel") closeMode(i);
}

/** @param {HTMLElement} card @param {KeyboardEvent} e */
function onCardKey(card, e) {
  if (e.key === "F3" && !e.ctrlKey && !e.altKey && !e.metaKey) {
    e.preventDefault();
    openConcordance(card);
    return;
  }
  // A box without codes: the copy-source key is the card's (a code-keeping box handles its own).
  if (isCopySource(e) && !e.defaultPrevented && e.target instanceof HTMLTextAreaElement && e.target.closest(".card-editor")) {
    e.preventDefault();
    copySource(e.target, sourceFor(state.batch[Number(card.dataset.index)].req, e.target.dataset.category));
    return;
  }
  // The text box, or the MQM issue picker beside it: Ctrl+Enter saves, Esc cancels.
  if (!(e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement)) return;
  const i = Number(card.dataset.index);
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    e.stopPropagation();
    if (state.batch[i].mode === "edit") commitEdit(i);
    else commitReject(i);
  } else if (e.key === "Escape") {
    e.preventDefault();
    e.stopPropagation();
    closeMode(i);
  }
}

/** @param {number} i */
function updateLiveDiff(i) {
  const item = state.batch[i];
  const card = /** @type {HTMLElement} */ (item.el);
  const text = editedText(card, item.req);
  redrawCodeBoxes(card);
  renderDiff(/** @type {HTMLElement} */ (card.querySelector(".card-live-diff")), diffWords(item.req.translate_string, text));
  /** @type {HTMLElement} */ (card.querySelector(".diff-stats")).textContent = describeEdit(item.req.translate_string, text);
}

/** @param {number} i */
export function updateCard(i) {
  const item = state.batch[i];
  const card = /** @type {HTMLElement} */ (item.el);
  const d = item.decision;
  card.dataset.verdict = d ? d.status : "";
  card.dataset.mode = item.mode;
  const verdict = /** @type {HTMLElement} */ (card.querySelector(".card-verdict"));
  const issue = d && d.status !== "approve" && d.issue ? ` · ${issueText(d.issue)}` : "";
  verdict.textContent = d ? VERDICT_TEXT[d.status] + (d.status === "reject" && d.reason ? `: ${d.reason}` : "") + issue : "Not decided";
  verdict.title = verdict.textContent;
  const diff = /** @type {HTMLElement} */ (card.querySelector(".card-diff"));
  const proposal = /** @type {HTMLElement} */ (card.querySelector(".card-proposal"));
  const label = /** @type {HTMLElement} */ (card.querySelector(".card-proposal-label"));
  if (d && d.status === "refined") {
    renderDiff(diff, diffWords(item.req.translate_string, d.text));
    diff.hidden = false;
    proposal.hidden = true;
    label.textContent = `Your edit (${describeEdit(item.req.translate_string, d.text)})`;
  } else {
    diff.hidden = true;
    proposal.hidden = false;
    label.textContent = "Proposal";
  }
  /** @type {HTMLElement} */ (card.querySelector(".card-editor")).hidden = item.mode !== "edit";
  /** @type {HTMLElement} */ (card.querySelector(".card-reject")).hidden = item.mode !== "reject";
  /** @type {HTMLElement} */ (card.querySelector(".card-actions")).hidden = item.mode !== "view";
}

/**
 * Make card `i` current: focused, and kept in view within the card list.
 * @param {number} i
 * @param {{scroll?: boolean, focus?: boolean}} [opts]
 */
export function focusCard(i, { scroll = true, focus = true } = {}) {
  if (!state.batch.length) return;
  i = Math.max(0, Math.min(state.batch.length - 1, i));
  state.current = i;
  state.batch.forEach((item, k) => {
    item.el?.classList.toggle("current", k === i);
    item.el?.setAttribute("tabindex", k === i ? "0" : "-1");
  });
  const card = /** @type {HTMLElement} */ (state.batch[i].el);
  if (focus && state.batch[i].mode === "view") card.focus({ preventScroll: true });
  if (scroll) reveal(card, "smooth");
  actions.currentChanged();
}

/** @param {number} i */
export function approve(i) {
  const item = state.batch[i];
  item.mode = "view";
  item.decision = { status: "approve" };
  item.editWarnings = [];
  showEditWarnings(i);
  decided(i);
}

/** @param {number} i @param {"edit" | "reject"} mode */
export function openMode(i, mode) {
  const item = state.batch[i];
  if (state.current !== i) focusCard(i);
  item.mode = mode;
  updateCard(i);
  const card = /** @type {HTMLElement} */ (item.el);
  /** @type {HTMLElement} */ (card.querySelector(".field-error")).hidden = true;
  const d = item.decision;
  if (mode === "edit") {
    const text = d?.status === "refined" ? d.text : item.req.translate_string;
    if (item.req.plural) fillForms(card, text);
    const ta = /** @type {HTMLTextAreaElement} */ (card.querySelector(".edit-text, .edit-form"));
    if (!item.req.plural) ta.value = text;
    setIssue(/** @type {Element} */ (card.querySelector(".card-editor .mqm-picker")), d?.status === "refined" ? d.issue : null);
    autosize(ta);
    updateLiveDiff(i);
    ta.focus({ preventScroll: true });
    ta.setSelectionRange(ta.value.length, ta.value.length);
  } else {
    const ta = /** @type {HTMLTextAreaElement} */ (card.querySelector(".reason-text"));
    ta.value = d?.status === "reject" ? d.reason || "" : "";
    setIssue(/** @type {Element} */ (card.querySelector(".card-reject .mqm-picker")), d?.status === "reject" ? d.issue : null);
    autosize(ta);
    ta.focus({ preventScroll: true });
  }
  reveal(card, "auto");
  reveal(/** @type {HTMLElement} */ (document.activeElement), "auto"); // the text box, when the card is taller than the view
}

/** @param {number} i */
function closeMode(i) {
  state.batch[i].mode = "view";
  updateCard(i);
  updateReviewHead();
  focusCard(i, { scroll: false });
}

/** The quality checks on the human's text (advice: a check that fails never blocks the verdict). @param {CopilotRequest} req @param {string} text */
async function checkText(req, text) {
  if (!req.file_id || !state.sessionId) return [];
  try {
    const r = await api.qa(state.sessionId, req.file_id, { source: req.src_string, translated_string: text, start: req.start });
    return shownWarnings(r.warnings || [], text);
  } catch {
    return [];
  }
}

/** The cards whose edit is being checked. @type {WeakSet<import("./review.js").Item>} */
const checking = new WeakSet();

/** Show the warnings on the human's edit, if any. @param {number} i */
function showEditWarnings(i) {
  const item = state.batch[i];
  const list = /** @type {HTMLElement} */ (item.el?.querySelector(".card-edit-warnings"));
  const warnings = item.decision?.status === "refined" ? item.editWarnings || [] : [];
  list.replaceChildren(...warnings.map((w) => h("li", { text: `Your edit: ${warningText(w)}` })));
  list.hidden = warnings.length === 0;
  if (item.el) item.el.dataset.editWarned = warnings.length ? "true" : "";
}

/** @param {number} i */
async function commitEdit(i) {
  const item = state.batch[i];
  if (checking.has(item)) return; // Ctrl+Enter again while its text is being checked

  const card = /** @type {HTMLElement} */ (item.el);
  const text = editedText(card, item.req);
  if (blankEdit(text, item.req)) {
    const err = /** @type {HTMLElement} */ (card.querySelector(".field-error"));
    err.textContent = item.req.plural
      ? "Every plural form needs a text. To drop this proposal, reject it instead."
      : "The translation cannot be empty. To drop this proposal, reject it instead.";
    err.hidden = false;
    return;
  }
  if (codesOff(card)) {
    checking.add(item);
    const ok = await askKeepCodes(card, editBalanceText(item.req, text));
    checking.delete(item);
    if (!ok || state.batch[i] !== item || item.mode !== "edit") return; // no, or the batch moved on meanwhile
  }
  const decision = editDecision(item.req, text, pickedIssue(card.querySelector(".card-editor .mqm-picker")));
  const others = state.batch.some((b, k) => k !== i && !b.decision);
  if (others) {
    // Not the last card: decide at once (focus moves on) and show the check's warnings when they come.
    item.mode = "view";
    item.decision = decision;
    item.editWarnings = [];
    showEditWarnings(i);
    decided(i);
    if (decision.status === "refined") track(item, decision, checkText(item.req, text));
    return;
  }
  // The last card: the batch would go now, so the human sees what the checks say first.
  const save = /** @type {HTMLButtonElement} */ (card.querySelector('[data-action="save-edit"]'));
  save.disabled = true;
  checking.add(item);
  const warnings = decision.status === "refined" ? await checkText(item.req, text) : [];
  checking.delete(item);
  save.disabled = false;
  if (state.batch[i] !== item || item.mode !== "edit") return; // the batch moved on, or the edit was cancelled
  item.mode = "view";
  item.decision = decision;
  item.editWarnings = warnings;
  showEditWarnings(i);
  decided(i, { hold: warnings.length > 0 || (await pendingWarned()) });
}

/** Checks still running on edits of this batch. @type {Set<Promise<boolean>>} */
const pendingChecks = new Set();

/**
 * Record an edit's check: its warnings go on the card if the decision still stands.
 * @param {import("./review.js").Item} item @param {import("./review.js").Decision} decision @param {Promise<import("./types.js").Warning[]>} check
 */
function track(item, decision, check) {
  const done = check.then((warnings) => {
    pendingChecks.delete(done);
    if (item.decision !== decision) return false;
    item.editWarnings = warnings;
    const i = state.batch.indexOf(item);
    if (i !== -1) showEditWarnings(i);
    return warnings.length > 0;
  });
  pendingChecks.add(done);
}

/** Wait for the checks still running; whether any of them warned. */
async function pendingWarned() {
  const results = await Promise.all([...pendingChecks]);
  return results.some(Boolean);
}

/** @param {number} i */
function commitReject(i) {
  const item = state.batch[i];
  const reason = /** @type {HTMLTextAreaElement} */ (item.el?.querySelector(".reason-text")).value.trim();
  const issue = pickedIssue(item.el?.querySelector(".card-reject .mqm-picker") ?? null);
  item.mode = "view";
  item.decision = issue ? { status: "reject", reason, issue } : { status: "reject", reason };
  decided(i);
}

/**
 * After a verdict: the next undecided card, or Send when all are decided (offered, not sent, when `hold`:
 * the human's own text just drew a warning, which they should see first).
 * @param {number} i @param {{hold?: boolean}} [opts]
 */
function decided(i, { hold = false } = {}) {
  updateCard(i);
  saveVerdicts();
  updateReviewHead();
  actions.batchChanged();
  const k = nextUndecided(state.batch, i);
  if (k !== -1) {
    focusCard(k);
    return;
  }
  if (state.batch.some((b) => b.mode !== "view")) return; // another card is still being edited
  if (!hold && pendingChecks.size) {
    // Wait for the checks, then decide as if they had been quick: the same rule whatever the timing.
    pendingWarned().then(() => decided(i, { hold: editWarned(state.batch) }));
    return;
  }
  if (hold || editWarned(state.batch)) {
    focusCard(i, { focus: false });
    setStatus("Your edit has a warning (see the card): send the verdicts when you are ready.");
    $("send-verdicts").focus({ preventScroll: true });
    return;
  }
  actions.sendVerdicts();
}


/** Approve every undecided card, asking first when one of them has a warning. */
export async function approveAll() {
  const open = state.batch.filter((b) => !b.decision);
  if (!open.length) return;
  const warned = warnedCards(state.batch).length;
  if (warned) {
    const ok = await confirmDialog(
      `${warned === 1 ? "1 card has" : `${num.format(warned)} cards have`} a warning (see the card). Approve all ${num.format(open.length)} remaining cards anyway?`,
      { title: "Approve cards with warnings?", ok: "Approve all", danger: false },
    );
    if (!ok) {
      const flagged = warnedCards(state.batch)[0];
      focusCard(state.batch.indexOf(flagged));
      return;
    }
  }
  state.batch.forEach((item, i) => {
    if (!item.decision) {
      item.mode = "view";
      item.decision = { status: "approve" };
      updateCard(i);
    }
  });
  saveVerdicts();
  updateReviewHead();
  actions.sendVerdicts();
}
