// @ts-check
// Comments on segments (API.md "Comments on segments"): a segment's thread where it shows (under its
// row in the segment list, in a review card), read when opened, with a comment posted
// (Ctrl+Enter) and each comment resolved or reopened; and the file's open threads above the list.
// A segment's counts come with the segment list (`comments`, `openComments`); what changes here
// is told to the page (`changed`), which reads the list again.

import { api, ApiError } from "./api.js";
import { $, h, num } from "./dom.js";
import { state } from "./state.js";
import { commentBadge, commentProblem, threadCounts } from "./teams.js";

/** @typedef {import("./types.js").Comment} Comment */

const when = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** What the page does after a post or a resolve (the counts changed). @type {() => void} */
let changed = () => {};
/** Where an open thread's segment is shown (the list filtered to it). @type {(segmentId: string) => void} */
let showSegment = () => {};

/** @param {{changed: () => void, showSegment: (segmentId: string) => void}} opts */
export function setupComments(opts) {
  changed = opts.changed;
  showSegment = opts.showSegment;
  $("threads").addEventListener("toggle", () => {
    if (/** @type {HTMLDetailsElement} */ ($("threads")).open) loadOpenThreads();
  });
}

/**
 * The thread of segment `segmentId` of the session's file `fileId`: its comments, read now, and the
 * form to add one.
 * @param {string} fileId @param {string} segmentId @param {{label?: string}} [opts]
 * @returns {HTMLElement}
 */
export function threadBox(fileId, segmentId, { label = "Comment" } = {}) {
  const sid = /** @type {string} */ (state.sessionId);
  const list = h("ol", { class: "thread-list", "aria-label": `Comments on segment ${segmentId.replace(/^s/, "")}` }, h("li", { class: "hint", text: "Loading the comments…" }));
  const ta = /** @type {HTMLTextAreaElement} */ (h("textarea", { class: "thread-text", rows: "2", "aria-label": label, placeholder: "A question or a note for the team (Ctrl+Enter posts, Esc leaves)" }));
  const error = h("p", { class: "field-error", role: "alert", hidden: true });
  const fail = (/** @type {unknown} */ err) => {
    error.textContent = err instanceof ApiError ? err.detail || err.message : err instanceof Error ? err.message : String(err);
    error.hidden = false;
  };
  /** @param {Comment[]} comments */
  const render = (comments) => {
    list.replaceChildren(...(comments.length ? comments.map(item) : [h("li", { class: "hint", text: "No comments yet." })]));
  };
  /** @param {Comment} c */
  const item = (c) =>
    h(
      "li",
      { class: `comment${c.resolved ? " comment-resolved" : ""}`, "data-comment-id": c.id },
      h("span", { class: "comment-head" }, h("strong", { text: c.by }), h("time", { datetime: c.at, text: ` · ${when.format(new Date(c.at))}` }), c.resolved ? h("span", { class: "comment-mark", text: ` · resolved${c.resolvedBy ? ` by ${c.resolvedBy}` : ""}` }) : null),
      h("span", { class: "comment-text", text: c.text }),
      h("button", {
        type: "button",
        class: "button button-quiet button-small",
        text: c.resolved ? "Reopen" : "Resolve",
        onclick: async () => {
          error.hidden = true;
          try {
            await api.resolveComment(sid, fileId, segmentId, c.id, !c.resolved);
            render(await api.thread(sid, fileId, segmentId));
            changed();
          } catch (err) {
            fail(err);
          }
        },
      }),
    );
  const post = async () => {
    const problem = commentProblem(ta.value);
    if (problem) return fail(problem);
    error.hidden = true;
    try {
      await api.postComment(sid, fileId, segmentId, ta.value);
      ta.value = "";
      render(await api.thread(sid, fileId, segmentId));
      changed();
    } catch (err) {
      fail(err);
    }
  };
  const box = h(
    "div",
    { class: "thread", "data-segment-id": segmentId },
    list,
    ta,
    error,
    h("div", { class: "form-actions" }, h("button", { type: "button", class: "button button-secondary button-small", onclick: post }, "Post ", h("kbd", { text: "Ctrl" }), "+", h("kbd", { text: "Enter" }))),
  );
  box.addEventListener("keydown", (e) => {
    e.stopPropagation(); // the card's and the list's keys stay theirs
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && e.target === ta) {
      e.preventDefault();
      post();
    } else if (e.key === "Escape") {
      // Back to the card or the row, whose keys work again.
      e.preventDefault();
      /** @type {HTMLElement | null} */ (box.closest(".card, .seg"))?.focus();
    }
  });
  box.addEventListener("click", (e) => e.stopPropagation());
  api.thread(sid, fileId, segmentId).then(render, fail);
  return box;
}

/** The file's open threads, listed above the segment list (asked when opened). */
export async function loadOpenThreads() {
  const sid = state.sessionId;
  const fileId = state.activeFileId;
  if (!sid || !fileId) return;
  try {
    const all = await api.threads(sid, true);
    if (sid !== state.sessionId) return;
    const file = (all.files || []).find((/** @type {{fileId: string}} */ f) => f.fileId === fileId);
    const threads = file?.threads || [];
    const counts = threadCounts(threads);
    $("threads-count").textContent = counts.open ? `(${num.format(counts.open)})` : "";
    $("threads-list").replaceChildren(
      ...(threads.length
        ? threads.map((/** @type {import("./types.js").Thread} */ t) => {
            const last = t.thread[t.thread.length - 1];
            return h(
              "li",
              {},
              h(
                "button",
                { type: "button", class: "thread-link", onclick: () => showSegment(t.segmentId) },
                h("strong", { text: `Segment ${t.segmentId.replace(/^s/, "")}` }),
                ` · ${num.format(t.open)} open of ${num.format(t.comments)}`,
                last ? h("span", { class: "hint", text: ` · ${last.by}: ${last.text.length > 80 ? `${last.text.slice(0, 80)}…` : last.text}` }) : null,
              ),
            );
          })
        : [h("li", { class: "hint", text: "No open threads in this file." })]),
    );
  } catch (err) {
    $("threads-list").replaceChildren(h("li", { class: "hint", text: `The threads could not be read: ${/** @type {Error} */ (err).message}` }));
  }
}

/**
 * A segment's comments in the list: a button with the count ("2 open") that opens its thread under
 * the row; without comments, a quiet "+" (named "Comment on this segment") on the focused or hovered row.
 * @param {{comments?: number, openComments?: number}} seg @param {boolean} expanded @param {() => void} toggle
 */
export function commentToggle(seg, expanded, toggle) {
  const badge = commentBadge(seg);
  return h("button", {
    type: "button",
    class: `seg-comments${badge ? (badge.open ? " seg-comments-open" : " seg-comments-some") : ""}`,
    "aria-expanded": String(expanded),
    "aria-label": badge ? `Comments: ${badge.label}` : "Comment on this segment",
    title: badge ? badge.label : "Comment on this segment",
    text: badge ? badge.text : "+",
    onclick: (/** @type {Event} */ e) => {
      e.stopPropagation();
      toggle();
    },
  });
}
