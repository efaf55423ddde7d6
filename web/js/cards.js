// @ts-check
// The review cards: one per copilot request, approve / edit / reject, next and previous, approve all
// (asking first when a card has a warning), and the review head with its counts and Send.

import { describeEdit, diffWords, renderDiff } from "./diff.js";
import { glossaryPieces, isKeepTerm, shownWarnings } from "./glossary.js";
import { $, autosize, confirmDialog, h, kbd, num, store } from "./dom.js";
import { api } from "./api.js";
import { editDecision, editWarned, makeBatch, nextUndecided, savable, summary, warnedCards, warningText } from "./review.js";
import { state } from "./state.js";
import { reveal } from "./reveal.js";
import { setPhase, setStatus } from "./status.js";
import { lineOf, unitIndexer } from "./text.js";
import { issuePicker, issueText, pickedIssue, setIssue } from "./mqm.js";
import { asText, blankEdit, contextLine, editedText, fillForms, formsEditor, formsView, sourceFormsView, writtenFormsView } from "./entries.js";

/** @typedef {import("./types.js").CopilotRequest} CopilotRequest */

const REJECT_REASONS = ["Mistranslation", "Wrong terminology", "Omission or addition", "Tone or register", "Broken formatting"];
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
    item.el = buildCard(item, i, state.batch.length);
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

/** "guide.md · line 12 · s4–s5", once the source is known. @param {CopilotRequest} req */
function whereOf(req) {
  const source = req.file_id ? state.sources.get(req.file_id) : undefined;
  const file = state.files.find((f) => f.fileId === req.file_id);
  // A resource string is found by its key (on the card), not by a line of the stored text.
  const at = req.context ? null : source != null ? `line ${num.format(lineOf(source, unitIndexer(source)(req.start ?? 0)))}` : `character ${num.format(req.start ?? 0)}`;
  const ids = req.segments ?? [];
  const segments = ids.length > 1 ? `${ids[0]}–${ids[ids.length - 1]}` : ids[0];
  return [file?.name, at, segments].filter(Boolean).join(" · ");
}

/** Once the source is known, cards say "line 12" instead of a character offset. */
export function relabelCards() {
  for (const item of state.batch) {
    const where = item.el?.querySelector(".card-where");
    if (where) where.textContent = whereOf(item.req);
  }
}

/** The proposal's quality estimate, what lowered it as the tooltip and below. @param {CopilotRequest} req */
function estimateBadge(req) {
  if (typeof req.estimate !== "number") return null;
  const reasons = req.estimateReasons || [];
  const band = req.estimate >= 85 ? "high" : req.estimate >= 60 ? "mid" : "low";
  return h("span", {
    class: `badge badge-estimate estimate-${band}`,
    title: reasons.length ? `Lowered by: ${reasons.join("; ")}` : "Nothing lowered it",
    "aria-label": `Quality estimate ${req.estimate} of 100${reasons.length ? `, lowered by ${reasons.join(", ")}` : ""}`,
    text: `Estimate ${req.estimate}`,
  });
}

/** @type {Record<string, (hit: import("./types.js").GlossaryHit) => [string, string]>} */
const HIT_TEXT = {
  preferred: (g) => (g.found ? ["ok", `«${g.term}» → «${g.expected}»`] : ["miss", `«${g.term}»: «${g.expected}» missing`]),
  keep: (g) => (g.found ? ["ok", `«${g.term}» kept`] : ["miss", `«${g.term}» not kept as it is`]),
  forbidden: (g) => (g.found ? ["miss", `«${g.expected}» used: forbidden for «${g.term}»`] : ["ok", `«${g.expected}» avoided`]),
};

/** The glossary's entries the source has, each kept, missing or (forbidden) used. @param {CopilotRequest} req */
function glossaryHits(req) {
  const hits = req.glossary || [];
  if (!hits.length) return null;
  return h(
    "ul",
    { class: "card-glossary", "aria-label": "Glossary" },
    hits.map((g) => {
      const [how, text] = (HIT_TEXT[g.kind] || HIT_TEXT.preferred)(g);
      return h("li", { class: `glossary-hit glossary-${how}`, "data-kind": g.kind, text });
    }),
  );
}

/** @param {string} label @param {string} action @param {string} cls @param {string[]} keys @param {string} aria */
const button = (label, action, cls, keys, aria) =>
  h("button", { type: "button", class: `button ${cls}`, "data-action": action, "aria-keyshortcuts": aria }, `${label} `, kbd(...keys));

/** @param {import("./review.js").Item} item @param {number} index @param {number} total */
function buildCard(item, index, total) {
  const { req } = item;
  const id = `card-${index}`;
  const warnings = item.warnings.map(warningText);
  const revise = req.tool.name === "Revise";
  const card = h(
    "article",
    {
      class: `card${revise ? " card-revise" : ""}`,
      id,
      tabindex: "-1",
      "data-index": index,
      "data-call-id": req.tool.callId,
      "data-start": req.start ?? 0,
      "data-warned": warnings.length ? "true" : null,
      "aria-labelledby": `${id}-title`,
      "aria-describedby": `${id}-verdict`,
    },
    h(
      "header",
      { class: "card-head" },
      h("h3", { class: "card-title", id: `${id}-title`, text: `Unit ${num.format(index + 1)} of ${num.format(total)}` }),
      revise ? h("span", { class: "badge badge-revise", text: "Revision" }) : null,
      req.origin === "memory"
        ? h("span", { class: "badge badge-memory", title: "An identical source you approved before", text: `From memory ${num.format(req.match ?? 100)}%` })
        : null,
      estimateBadge(req),
      h("span", { class: "card-where", text: whereOf(req) }),
      h("span", { class: "card-verdict", id: `${id}-verdict` }),
    ),
    contextLine(req),
    warnings.length ? h("ul", { class: "card-warnings", "aria-label": "Warnings" }, warnings.map((w) => h("li", { text: w }))) : null,
    glossaryHits(req),
    h("ul", { class: "card-edit-warnings", "aria-label": "Warnings on your text", "aria-live": "polite", hidden: true }),
    h(
      "div",
      { class: "card-pair" },
      h(
        "div",
        { class: "card-col" },
        h("div", { class: "col-label", text: "Source" }),
        sourceFormsView(req) || h("div", { class: "card-text card-source" }, sourcePieces(req.src_string)),
      ),
      h(
        "div",
        { class: "card-col" },
        revise && req.current_string != null
          ? [
              h("div", { class: "col-label", text: "Written now" }),
              h("del", { class: "card-text card-current", lang: state.lang, dir: "auto", title: "replaced by the proposal" }, writtenFormsView(req.current_string) ?? req.current_string),
            ]
          : null,
        h("div", { class: "col-label card-proposal-label", text: revise ? "Proposed revision" : "Proposal" }),
        req.plural
          ? formsView(req)
          : h("div", { class: "card-text card-proposal", lang: state.lang, dir: "auto", text: req.translate_string }),
        h("div", { class: "card-text card-diff", lang: state.lang, dir: "auto", hidden: true }),
      ),
    ),
    references(req),
    h(
      "div",
      { class: "card-editor", hidden: true },
      h("label", { for: req.plural ? null : `${id}-edit`, text: "Your translation" }),
      req.plural
        ? formsEditor(id, req)
        : h("textarea", { id: `${id}-edit`, class: "edit-text", lang: state.lang, dir: "auto", spellcheck: "true" }),
      h("div", { class: "col-label" }, "Changes against the proposal: ", h("span", { class: "diff-stats" })),
      h("div", { class: "card-text card-live-diff", lang: state.lang, dir: "auto" }),
      h("p", { class: "field-error", role: "alert", hidden: true }),
      issuePicker(`${id}-edit`),
      h(
        "div",
        { class: "form-actions" },
        button("Save and approve", "save-edit", "button-primary", ["Ctrl", "Enter"], "Control+Enter"),
        button("Cancel", "cancel", "button-secondary", ["Esc"], "Escape"),
      ),
    ),
    h(
      "div",
      { class: "card-reject", hidden: true },
      h("label", { for: `${id}-reason` }, "Why reject? ", h("span", { class: "hint", text: "The model reads this and proposes again." })),
      h("div", { class: "chips", role: "group", "aria-label": "Common reasons" },
        REJECT_REASONS.map((r) => h("button", { type: "button", class: "chip", "data-reason": r, text: r }))),
      h("textarea", { id: `${id}-reason`, class: "reason-text", rows: "2" }),
      issuePicker(`${id}-reject`),
      h(
        "div",
        { class: "form-actions" },
        button("Reject", "save-reject", "button-danger", ["Ctrl", "Enter"], "Control+Enter"),
        button("Cancel", "cancel", "button-secondary", ["Esc"], "Escape"),
      ),
    ),
    h(
      "footer",
      { class: "card-actions" },
      button("Approve", "approve", "button-approve", ["A"], "A"),
      button("Edit", "edit", "button-secondary", ["E"], "E"),
      button("Reject", "reject", "button-secondary button-reject", ["R"], "R"),
    ),
  );
  card.addEventListener("click", (e) => onCardClick(card, /** @type {HTMLElement} */ (e.target)));
  card.addEventListener("keydown", (e) => onCardKey(card, e));
  let frame = 0;
  for (const edit of /** @type {NodeListOf<HTMLTextAreaElement>} */ (card.querySelectorAll(".edit-text, .edit-form"))) {
    edit.addEventListener("input", () => {
      autosize(edit);
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => updateLiveDiff(Number(card.dataset.index)));
    });
  }
  const reason = /** @type {HTMLTextAreaElement} */ (card.querySelector(".reason-text"));
  reason.addEventListener("input", () => autosize(reason));
  return card;
}

/** The source with the glossary's terms marked, the preferred translation as a tooltip. @param {string} text */
function sourcePieces(text) {
  return glossaryPieces(text, state.glossary).map((p) =>
    p.term ? h("mark", { class: "term", title: termTitle(p.term), text: p.text }) : p.text,
  );
}

/** A marked term's tooltip: its translation, or that it is kept as it is. @param {import("./glossary.js").Term} t */
const termTitle = (t) => {
  const forbidden = state.glossary.filter((g) => g.kind === "forbidden" && g.source.trim().toLowerCase() === t.source.trim().toLowerCase());
  const never = forbidden.length ? `; never ${forbidden.map((g) => g.target).join(", ")}` : "";
  if (t.kind === "forbidden") return `Glossary: ${t.source}: never ${forbidden.map((g) => g.target).join(", ")}`;
  return (isKeepTerm(t.source, t.target) || t.kind === "keep" ? `Glossary: keep ${t.source} as it is` : `Glossary: ${t.source} → ${t.target}`) + never;
};

/** Mark the glossary's terms again in every card's source (the glossary changed). */
export function remarkTerms() {
  for (const item of state.batch) {
    const el = item.el?.querySelector(".card-source");
    if (el) el.replaceChildren(...sourcePieces(item.req.src_string));
  }
}

/** Similar units from the translation memory, collapsed: score, the old source's differences, its translation. @param {CopilotRequest} req */
function references(req) {
  const refs = (req.references || []).filter(Boolean);
  if (!refs.length) return null;
  return h(
    "details",
    { class: "card-refs" },
    h("summary", { text: `Similar in your memory (${num.format(refs.length)})` }),
    h(
      "ul",
      { class: "ref-list" },
      refs.map((r) =>
        h(
          "li",
          { class: "ref" },
          h("span", { class: "ref-score", title: "similarity to this source", text: `${num.format(Math.round(r.score))}%` }),
          h("div", { class: "card-text ref-source", "aria-label": "Remembered source, differences marked" }, refDiff(r)),
          h("div", { class: "card-text ref-target", lang: state.lang, dir: "auto", text: r.target }),
        ),
      ),
    ),
  );
}

/** The remembered source with what differs from this one marked. @param {import("./types.js").Reference} r */
function refDiff(r) {
  if (!r.diff || !r.diff.length) return [r.source];
  return r.diff.map(([op, text]) =>
    op === "delete"
      ? h("del", { title: "only in the remembered source", text })
      : op === "insert"
        ? h("ins", { title: "only in this source", text })
        : text,
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
