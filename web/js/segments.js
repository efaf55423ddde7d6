// @ts-check
// The workbench: the whole document as a segment list beside the cards, with status colours, a
// status filter, search in source and translation, progress in units and characters, the current
// batch highlighted, and revision of any written segment (keyboard first: ↑/↓, Enter, Ctrl+Enter, Esc).

import { api } from "./api.js";
import { $, autosize, h, num } from "./dom.js";
import { ApiError } from "./http.js";
import { estimateBand, estimateBounds, filterSegments, searchTerms, isWritten, loadSegments, progressParts, reviseSegment, segmentProgress, STATUS_LABEL, withPending } from "./segmodel.js";
import { state } from "./state.js";
import { setStatus } from "./status.js";
import { excerpt, lineExcerpt } from "./text.js";
import { issuePicker, issueText, pickedIssue } from "./mqm.js";
import { contextLine, formsOf, keyText, listedTarget } from "./entries.js";
import { contextBox } from "./strctx.js";
import { askKeepCodes, codeBox, codeKeysHint, codesOff, copySource, isCopySource, redrawCodeBoxes } from "./chipedit.js";
import { balanceText, chipPieces } from "./chips.js";
import { commentToggle, loadOpenThreads, threadBox } from "./comments.js";
import { reviewQueue, reviewsUnit } from "./teams.js";

/** The caller's role here: a project member's, or (a session of one's own) the owner's, who may do all. */
const teamRole = () => (state.team.project ? state.team.role : "manager");

/** @typedef {import("./types.js").Segment} Segment */

/**
 * What the list triggers outside itself (given by `setupSegments`): focus a card of the batch, show a
 * segment in the source, re-read the document and memory after a revision, approve what is shown.
 * `approveShown` with `step` "review": a reviewer's approval of `translated` units (double review).
 * @typedef {{focusCard: (index: number) => void, showInSource: (start: number) => void, revised: (fileId: string) => void, approveShown: (filter: {status?: string, q?: string, minEstimate?: number, key?: string}, step?: "review") => void}} SegmentActions
 */
/** @type {SegmentActions} */
let actions = { focusCard: () => {}, showInSource: () => {}, revised: () => {}, approveShown: () => {} };
/** @type {string | null} the segment whose comment thread is open under its row */
let threadOpen = null;

let token = 0;
/** @type {number | null} the start of the segment the revise editor is open on */
let editing = null;
/** @type {number | null} the focused row's start */
let focused = null;

/** Load the active file's segments and show them. */
export async function refreshSegments() {
  const fileId = state.activeFileId;
  const sid = state.sessionId;
  if (!fileId || !sid) return;
  const mine = ++token;
  try {
    const loaded = await loadSegments(api, sid, fileId);
    if (mine !== token || sid !== state.sessionId) return;
    state.segments = { ...loaded, fileId };
    if (/** @type {HTMLDetailsElement} */ ($("threads")).open) loadOpenThreads();
    $("seg-note").hidden = loaded.server;
    $("seg-note").textContent = loaded.server
      ? ""
      : "This server lists no segments yet: the list is built from the written units, and revising after the fact is not available.";
    renderSegments();
  } catch (err) {
    if (mine !== token) return;
    $("seglist").replaceChildren(h("li", { class: "hint", text: `The segments could not be loaded: ${/** @type {Error} */ (err).message}` }));
  }
}

/** The list with the current batch's spans marked "in review" (the server's list may lag a step). */
function shown() {
  const pending = state.batch.filter((b) => b.req.file_id === state.activeFileId || !b.req.file_id).map((b) => b.req);
  return withPending(state.segments.segments, pending);
}

/** @param {Segment} seg */
function batchIndex(seg) {
  return state.batch.findIndex((b) => b.req.start === seg.start && b.req.tool.name !== "Revise");
}

export function renderSegments() {
  const all = shown();
  const filter = { status: $("seg-status").value, q: $("seg-search").value, ...estimateBounds($("seg-estimate").value), sort: $("seg-sort").value };
  const list = filterSegments(all, filter);
  // The server approves what QA has no warning on: count those, as the cards show their warnings.
  const clean = (/** @type {Segment} */ s) => !state.batch.some((b) => b.req.start === s.start && b.req.tool.name !== "Revise" && b.warnings.length);
  const queue = reviewQueue({ review: state.team.review ?? undefined }, teamRole());
  const reviewing = queue.shown && filter.status === queue.filter.status;
  // A reviewer's queue approves translated units (the second step); otherwise the proposals in review.
  const approvable = reviewing ? list.filter((s) => s.status === "translated").length : list.filter((s) => s.status === "pending" && clean(s)).length;
  $("seg-approve-shown").hidden = !approvable || !state.segments.server || filter.maxEstimate != null;
  $("seg-approve-shown").textContent = `${reviewing ? "Approve all shown as reviewed" : "Approve all shown"} (${num.format(approvable)})`;
  $("seg-approve-shown").dataset.step = reviewing ? "review" : "";
  $("seg-queue").hidden = !queue.shown;
  const waiting = all.filter((s) => s.status === "translated").length;
  $("seg-queue").textContent = `Review queue (${num.format(waiting)})`;
  $("seg-queue").setAttribute("aria-pressed", String(reviewing));
  const p = segmentProgress(all);
  // Characters as the server counts them (the whole file, layout included), units from the list.
  const file = state.files.find((f) => f.fileId === state.activeFileId);
  const done = file?.progress?.translatedChars ?? p.chars;
  const total = file?.progress?.totalChars ?? file?.chars ?? p.total;
  const units = progressParts(p, typeof file?.segments === "number" ? file.segments : null);
  const parts = [
    h("strong", { class: "seg-progress-head", text: units.head }),
    ...[...units.rest, `${num.format(done)} / ${num.format(total)} characters`].flatMap((t) => [" · ", h("span", { class: "seg-progress-part", text: t })]),
  ];
  if (list.length !== all.length) parts.push(h("span", { class: "hint", text: ` · ${num.format(list.length)} shown` }));
  $("seg-progress").replaceChildren(...parts);
  const rows = list.map((seg, n) => row(seg, n, all.indexOf(seg) + 1));
  if (!rows.length) rows.push(h("li", { class: "seg-empty hint", text: all.length ? "No segment matches." : "No segments yet." }));
  $("seglist").replaceChildren(...rows);
  if (editing != null) redrawCodeBoxes($("seglist")); // a revision box drawn again: its chips and codes line too
  highlightBatch();
}

/** @param {Segment} seg @param {number} n @param {number} position */
function row(seg, n, position) {
  // The segment's stable number from upload (s12 → 12), as CAT tools show it; a list position without one.
  const number = seg.id ? seg.id.replace(/^s/, "") : String(position);
  const index = batchIndex(seg);
  // Text kept as it is (code) keeps its lines; prose is one flowing excerpt.
  const shorten = seg.status === "verbatim" ? lineExcerpt : (/** @type {string} */ t) => excerpt(t, 140);
  const el = h(
    "li",
    {
      class: `seg seg-status-${seg.status}`,
      "data-start": seg.start,
      "data-status": seg.status,
      "data-batch": index >= 0 ? index : null,
      tabindex: (focused ?? -1) === seg.start || (focused == null && n === 0) ? "0" : "-1",
      "aria-label": `Segment ${number}, ${STATUS_LABEL[seg.status] || seg.status}`,
    },
    h("span", { class: "seg-num", text: number }),
    h("span", { class: "seg-badge", text: STATUS_LABEL[seg.status] || seg.status }),
    h("span", { class: "seg-src", title: seg.context?.key != null ? keyText(seg.context.key) : null }, chipPieces(shorten(seg.source), seg.context?.codes)),
    h("span", { class: "seg-tgt", lang: state.lang, dir: "auto" }, seg.target ? chipPieces(shorten(listedTarget(seg)), seg.context?.codes) : ""),
    h(
      "span",
      { class: "seg-meta" },
      seg.estimate != null
        ? h("span", { class: `seg-estimate estimate-${estimateBand(seg.estimate)}`, title: "Quality estimate (0–100)", text: String(seg.estimate) })
        : null,
      seg.auto ? h("span", { class: "seg-auto", title: "Approved without a review (auto-approve)", text: "auto" }) : null,
      state.segments.server && seg.id
        ? commentToggle(seg, threadOpen === seg.id, () => {
            threadOpen = threadOpen === seg.id ? null : seg.id ?? null;
            focused = seg.start;
            renderSegments();
            /** @type {HTMLElement | null} */ (document.querySelector(".seg .thread-text"))?.focus();
          })
        : null,
    ),
  );
  el.addEventListener("click", (e) => {
    if (/** @type {HTMLElement} */ (e.target).closest(".seg-editor, .seg-history, .thread, .seg-comments")) return;
    activate(seg);
  });
  const trail = history(seg);
  if (trail) el.append(trail);
  if (seg.id && threadOpen === seg.id && state.activeFileId) el.append(threadBox(state.activeFileId, seg.id));
  if (editing === seg.start) el.append(editor(seg));
  return el;
}

/** Open segment `segmentId`'s thread and bring its row into view (the list's filters cleared when they hide it). @param {string} segmentId */
export function showThread(segmentId) {
  const seg = state.segments.segments.find((s) => s.id === segmentId);
  if (!seg) return;
  threadOpen = segmentId;
  if (!filterSegments([seg], { status: $("seg-status").value, q: $("seg-search").value, ...estimateBounds($("seg-estimate").value) }).length) {
    $("seg-status").value = "";
    $("seg-search").value = "";
    $("seg-estimate").value = "";
  }
  renderSegments();
  const rowEl = /** @type {HTMLElement | null} */ ($("seglist").querySelector(`.seg[data-start="${seg.start}"]`));
  rowEl?.scrollIntoView({ block: "nearest" });
  /** @type {HTMLElement | null} */ (rowEl?.querySelector(".thread-text"))?.focus();
}

/** @type {Record<string, string>} */
const ACTION_TEXT = { approved: "Approved", refined: "Edited", rejected: "Rejected", revised: "Revised", reviewed: "Reviewed", verbatim: "Kept as is" };
/** @type {Record<string, string>} */
const ORIGIN_TEXT = { model: "from the model's proposal", memory: "from your translation memory", human: "typed by hand", verbatim: "kept from the source" };
const when = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** Who acted in an audit event: a person, or the session's routing rule. @param {{by?: string | null, rule?: {rule: string} | null}} e */
const actor = (e) => e.by ?? (e.rule?.rule === "pretranslate" ? "the model's pre-translation" : "the auto-approval rule");

/** A written unit's audit trail, collapsed: who did what, when, to which proposal. @param {Segment} seg */
function history(seg) {
  const events = seg.history || [];
  if (!events.length) return null;
  const last = events[events.length - 1];
  return h(
    "details",
    { class: "seg-history" },
    h("summary", { text: `History (${num.format(events.length)}): ${ACTION_TEXT[last.action] || last.action} by ${actor(last)}` }),
    h(
      "ol",
      { class: "seg-history-list" },
      events.map((e) =>
        h(
          "li",
          { class: `seg-event seg-event-${e.action}` },
          h("strong", { text: ACTION_TEXT[e.action] || e.action }),
          ` by ${actor(e)}`,
          h("time", { datetime: e.at, text: ` · ${when.format(new Date(e.at))}` }),
          e.origin ? ` · ${ORIGIN_TEXT[e.origin] || `from ${e.origin}`}` : "",
          e.estimate != null ? ` · estimate ${num.format(e.estimate)}` : "",
          e.issue ? h("span", { class: "seg-event-issue", text: ` · ${issueText(e.issue)}` }) : null,
        ),
      ),
    ),
  );
}

/** Enter or a click: a card of the batch takes focus; a written segment opens for revision. @param {Segment} seg */
function activate(seg) {
  focused = seg.start;
  const index = batchIndex(seg);
  if (index >= 0) {
    actions.focusCard(index);
    return;
  }
  actions.showInSource(seg.start);
  if (isWritten(seg.status)) openEditor(seg.start);
  else focusRow(seg.start);
}

/** @param {number} start */
function openEditor(start) {
  if (!state.segments.server) {
    setStatus("Revising a written segment needs a newer server.");
    focusRow(start);
    return;
  }
  if (state.batch.length) {
    setStatus("Finish the review of this batch first: a revision waits until no review is pending.");
    focusRow(start);
    return;
  }
  editing = start;
  renderSegments();
  const ta = /** @type {HTMLTextAreaElement | null} */ (document.querySelector(".seg-editor textarea"));
  if (ta) {
    autosize(ta);
    ta.focus();
    ta.setSelectionRange(ta.value.length, ta.value.length);
  }
}

/** @param {Segment} seg */
function editor(seg) {
  const ta = /** @type {HTMLTextAreaElement} */ (h("textarea", { class: "seg-edit", lang: state.lang, dir: "auto", "aria-label": "Revised translation" }));
  ta.value = seg.target || "";
  const reason = /** @type {HTMLInputElement} */ (h("input", { type: "text", class: "seg-reason", placeholder: "Why (optional; the memory learns from it)", "aria-label": "Reason" }));
  const error = h("p", { class: "field-error", role: "alert", hidden: true });
  const picker = issuePicker(`seg-${seg.start}`);
  const codes = seg.context?.codes || [];
  // A plural entry's forms are edited as their JSON text: its codes are not locked here.
  const locked = codes.length > 0 && !formsOf(seg.target || "");
  const save = async () => {
    if (locked && codesOff(box) && !(await askKeepCodes(box, balanceText(seg.source, ta.value, codes)))) return;
    saveRevision(seg, ta.value, reason.value.trim(), error, pickedIssue(picker));
  };
  const box = h(
    "div",
    { class: "seg-editor" },
    seg.context ? contextLine(/** @type {import("./types.js").CopilotRequest} */ ({ context: seg.context })) : null,
    h("div", { class: "seg-editor-source" }, locked ? chipPieces(seg.source, codes) : seg.source),
    locked ? codeBox(ta, { codes, source: () => seg.source }) : ta,
    locked ? codeKeysHint() : null,
    reason,
    picker,
    error,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "button", class: "button button-primary button-small", onclick: save }, reviewsUnit(seg.status, { review: state.team.review, role: teamRole() }) ? "Save as reviewed " : "Save revision ", h("kbd", { text: "Ctrl" }), "+", h("kbd", { text: "Enter" })),
      h("button", { type: "button", class: "button button-secondary button-small", onclick: () => closeEditor(seg.start) }, "Cancel ", h("kbd", { text: "Esc" })),
    ),
  );
  if (seg.context && seg.id && state.activeFileId) box.append(contextBox(state.activeFileId, seg.id, seg.source));
  box.addEventListener("keydown", (e) => {
    e.stopPropagation();
    if (isCopySource(e) && !e.defaultPrevented && e.target === ta) {
      e.preventDefault();
      copySource(ta, seg.source);
      return;
    }
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      save();
    } else if (e.key === "Escape") {
      e.preventDefault();
      closeEditor(seg.start);
    }
  });
  ta.addEventListener("input", () => autosize(ta));
  return box;
}

/** @param {number} start */
function closeEditor(start) {
  editing = null;
  renderSegments();
  focusRow(start);
}

/**
 * @param {Segment} seg @param {string} text @param {string} reason @param {HTMLElement} error
 * @param {import("./types.js").MqmIssue} [issue]
 */
async function saveRevision(seg, text, reason, error, issue) {
  if (!text.trim()) {
    error.textContent = "The translation cannot be empty.";
    error.hidden = false;
    return;
  }
  const review = reviewsUnit(seg.status, { review: state.team.review, role: teamRole() }); // the same text is the reviewer's approval
  if (text === seg.target && !review) {
    closeEditor(seg.start);
    return;
  }
  const sid = /** @type {string} */ (state.sessionId);
  const fileId = /** @type {string} */ (state.activeFileId);
  try {
    const result = await reviseSegment(api, sid, fileId, seg.start, text, reason || undefined, issue);
    if (result.ok) {
      editing = null;
      setStatus(review ? (text === seg.target ? "Approved as reviewed." : "Edited and reviewed.") : "Revision saved.");
      await refreshSegments();
      focusRow(seg.start);
      actions.revised(fileId);
      return;
    }
    editing = null;
    await refreshSegments();
    setStatus(
      result.why === "conflict"
        ? "The session changed meanwhile: the list was reloaded. Check the segment, then revise it again."
        : result.why === "missing"
          ? "That segment is no longer a written unit: the list was reloaded."
          : "This server cannot revise segments yet.",
    );
    focusRow(seg.start);
  } catch (err) {
    error.textContent = `The revision was not saved: ${err instanceof ApiError ? err.message : String(err)}`;
    error.hidden = false;
  }
}

/** @param {number} start */
function focusRow(start) {
  focused = start;
  const rows = /** @type {HTMLElement[]} */ ([...$("seglist").querySelectorAll(".seg")]);
  const target = rows.find((r) => Number(r.dataset.start) === start) || rows[0];
  if (!target) return;
  for (const r of rows) r.tabIndex = r === target ? 0 : -1;
  target.focus({ preventScroll: true });
  target.scrollIntoView({ block: "nearest" });
}

/** Mark the batch's rows, the current card's outlined, and keep it in view. */
export function highlightBatch() {
  const rows = /** @type {HTMLElement[]} */ ([...$("seglist").querySelectorAll(".seg")]);
  for (const r of rows) r.classList.toggle("seg-current", r.dataset.batch === String(state.current));
  const current = rows.find((r) => r.dataset.batch === String(state.current));
  if (current && !$("workbench").hidden) {
    const list = $("seglist");
    const top = current.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top + current.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTo({ top: Math.max(0, top - list.clientHeight / 3) });
    }
  }
}

/** Wire the list's filters, keys and "Approve all shown". @param {SegmentActions} given */
export function setupSegments(given) {
  actions = given;
  let typing = 0;
  $("seg-search").addEventListener("input", () => {
    clearTimeout(typing);
    typing = window.setTimeout(renderSegments, 120);
  });
  $("seg-search").addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      renderSegments();
      const first = /** @type {HTMLElement | null} */ ($("seglist").querySelector(".seg"));
      if (first) focusRow(Number(first.dataset.start));
    } else if (e.key === "Escape") {
      $("seg-search").value = "";
      renderSegments();
    }
  });
  $("seg-status").addEventListener("change", renderSegments);
  $("seg-estimate").addEventListener("change", renderSegments);
  $("seg-sort").addEventListener("change", renderSegments);
  $("seg-approve-shown").addEventListener("click", () => {
    const bounds = estimateBounds($("seg-estimate").value);
    /** @type {{status?: string, q?: string, minEstimate?: number, key?: string}} */
    const filter = {};
    const terms = searchTerms($("seg-search").value);
    if ($("seg-status").value) filter.status = $("seg-status").value;
    if (terms.q) filter.q = terms.q;
    if (terms.key) filter.key = terms.key;
    if (bounds.minEstimate != null) filter.minEstimate = bounds.minEstimate;
    actions.approveShown(filter, $("seg-approve-shown").dataset.step === "review" ? "review" : undefined);
  });
  $("seg-queue").addEventListener("click", () => {
    const on = $("seg-status").value === "translated";
    $("seg-status").value = on ? "" : "translated";
    renderSegments();
  });
  $("seglist").addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    const rowEl = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (e.target).closest(".seg"));
    if (!rowEl || /** @type {HTMLElement} */ (e.target).closest(".seg-editor, .seg-history, .thread, .seg-comments")) return;
    const rows = /** @type {HTMLElement[]} */ ([...$("seglist").querySelectorAll(".seg")]);
    const at = rows.indexOf(rowEl);
    const move = { ArrowDown: 1, ArrowUp: -1, Home: -rows.length, End: rows.length }[e.key];
    if (move) {
      const next = rows[Math.max(0, Math.min(rows.length - 1, at + move))];
      focusRow(Number(next.dataset.start));
    } else if (e.key === "Enter" || e.key === "e") {
      const seg = shown().find((s) => s.start === Number(rowEl.dataset.start));
      if (seg) activate(seg);
    } else return;
    e.preventDefault();
    e.stopPropagation();
  });
}
