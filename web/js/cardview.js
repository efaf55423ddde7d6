// @ts-check
// A review card as it is built: where the unit is (file, line, segments), its estimate, context,
// warnings and glossary hits, the source with the glossary's terms marked, the proposal (a plural
// entry's forms), the similar units remembered, and the hidden editor and rejection form. What its
// buttons and keys do is the review's flow (cards.js), given to `buildCard`.

import { chipPieces } from "./chips.js";
import { codeBox, codeKeysHint } from "./chipedit.js";
import { threadBox } from "./comments.js";
import { concordanceBox } from "./concordance.js";
import { contextBox } from "./strctx.js";
import { autosize, h, kbd, num } from "./dom.js";
import { contextLine, formsEditor, formsView, sourceFor, sourceFormsView, writtenFormsView } from "./entries.js";
import { glossaryPieces, isKeepTerm } from "./glossary.js";
import { issuePicker } from "./mqm.js";
import { warningText } from "./review.js";
import { state } from "./state.js";
import { lineOf, unitIndexer } from "./text.js";

/** @typedef {import("./types.js").CopilotRequest} CopilotRequest */

const REJECT_REASONS = ["Mistranslation", "Wrong terminology", "Omission or addition", "Tone or register", "Broken formatting"];

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

/**
 * What a card's events lead to (the review's flow, in cards.js).
 * @typedef {{onClick: (card: HTMLElement, target: HTMLElement) => void, onKey: (card: HTMLElement, e: KeyboardEvent) => void, onEdit: (i: number) => void}} CardEvents
 */

/**
 * Card `index` of `total`: its head, context, warnings, glossary, source and proposal, the similar
 * units remembered, and its editor, rejection form and actions (hidden by mode).
 * @param {import("./review.js").Item} item @param {number} index @param {number} total @param {CardEvents} events
 */
export function buildCard(item, index, total, events) {
  const { req } = item;
  const id = `card-${index}`;
  const warnings = item.warnings.map(warningText);
  const levels = item.warnings.map((w) => (typeof w === "string" ? "warning" : w.level || "warning"));
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
      req.sampled
        ? h("span", {
            class: "badge badge-sampled",
            title: "Auto-approval would have passed it without you; its sample sends it to you, which measures the rule",
            text: "Sampled",
          })
        : null,
      h("span", { class: "card-where", text: whereOf(req) }),
      h("span", { class: "card-verdict", id: `${id}-verdict` }),
    ),
    contextLine(req),
    warnings.length
      ? h("ul", { class: "card-warnings", "aria-label": "Warnings" }, warnings.map((w, i) => (levels[i] === "error" ? h("li", { class: "qa-error" }, h("strong", { text: "Error: " }), w) : h("li", { text: w }))))
      : null,
    glossaryHits(req),
    h("ul", { class: "card-edit-warnings", "aria-label": "Warnings on your text", "aria-live": "polite", hidden: true }),
    h(
      "div",
      { class: "card-pair" },
      h(
        "div",
        { class: "card-col" },
        h("div", { class: "col-label", text: "Source" }),
        sourceView(req),
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
          ? formsView(req, (text) => chipPieces(text, codesOf(req)))
          : h("div", { class: "card-text card-proposal", lang: state.lang, dir: "auto" }, chipPieces(req.translate_string, codesOf(req))),
        h("div", { class: "card-text card-diff", lang: state.lang, dir: "auto", hidden: true }),
      ),
    ),
    references(req),
    concordanceBox(),
    req.context && req.file_id && req.segments?.length ? contextBox(req.file_id, req.segments[0], req.src_string) : null,
    h(
      "div",
      { class: "card-editor", hidden: true },
      h("label", { for: req.plural ? null : `${id}-edit`, text: "Your translation" }),
      lockCodes(
        req,
        req.plural
          ? formsEditor(id, req)
          : h("textarea", { id: `${id}-edit`, class: "edit-text", lang: state.lang, dir: "auto", spellcheck: "true" }),
      ),
      codesOf(req).length ? codeKeysHint() : null,
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
      commentButton(req),
    ),
  );
  card.addEventListener("click", (e) => events.onClick(card, /** @type {HTMLElement} */ (e.target)));
  card.addEventListener("keydown", (e) => events.onKey(card, e));
  let frame = 0;
  for (const edit of /** @type {NodeListOf<HTMLTextAreaElement>} */ (card.querySelectorAll(".edit-text, .edit-form"))) {
    edit.addEventListener("input", () => {
      autosize(edit);
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => events.onEdit(Number(card.dataset.index)));
    });
  }
  const reason = /** @type {HTMLTextAreaElement} */ (card.querySelector(".reason-text"));
  reason.addEventListener("input", () => autosize(reason));
  return card;
}

/**
 * The card's comment thread (its first segment's), opened above the card's actions on demand.
 * @param {import("./types.js").CopilotRequest} req
 */
function commentButton(req) {
  const segmentId = req.segments?.[0];
  const fileId = req.file_id || state.activeFileId;
  if (!segmentId || !fileId) return null;
  return h("button", {
    type: "button",
    class: "button button-quiet button-small card-comments",
    "aria-expanded": "false",
    text: "Comments",
    onclick: (/** @type {Event} */ e) => {
      const button = /** @type {HTMLElement} */ (e.currentTarget);
      const card = /** @type {HTMLElement} */ (button.closest(".card"));
      const open = card.querySelector(":scope > .thread");
      button.setAttribute("aria-expanded", String(!open));
      if (open) open.remove();
      else {
        const box = threadBox(fileId, segmentId, { label: `Comment on unit ${card.dataset.index ? Number(card.dataset.index) + 1 : ""}` });
        card.querySelector(".card-actions")?.before(box);
        /** @type {HTMLElement | null} */ (box.querySelector("textarea"))?.focus();
      }
    },
  });
}

/** The source with the glossary's terms marked, the preferred translation as a tooltip. @param {string} text */
function termPieces(text) {
  return glossaryPieces(text, state.glossary).map((p) =>
    p.term ? h("mark", { class: "term", title: termTitle(p.term), text: p.text }) : p.text,
  );
}

/** A card's locked codes (its source's), none for a plain document's unit. @param {CopilotRequest} req @returns {string[]} */
const codesOf = (req) => req.context?.codes || [];

/**
 * `editor` (a text box, or a plural entry's form boxes) with each box keeping the card's codes whole.
 * @param {CopilotRequest} req @param {HTMLElement} editor
 */
function lockCodes(req, editor) {
  const codes = codesOf(req);
  if (!codes.length) return editor;
  const boxes = editor instanceof HTMLTextAreaElement ? [editor] : /** @type {HTMLTextAreaElement[]} */ ([...editor.querySelectorAll("textarea")]);
  const wrapped = boxes.map((box) => {
    const place = box.parentNode ? document.createComment("") : null;
    if (place) box.replaceWith(place);
    const wrap = codeBox(box, { codes, source: () => sourceFor(req, box.dataset.category) });
    place?.replaceWith(wrap);
    return wrap;
  });
  return editor instanceof HTMLTextAreaElement ? wrapped[0] : editor;
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
  for (const item of state.batch) item.el?.querySelector(".card-source")?.replaceWith(sourceView(item.req));
}

/** A card's source: a plural entry's forms, or its text, each with the glossary's terms marked. @param {CopilotRequest} req */
function sourceView(req) {
  /** @param {string} text */
  const pieces = (text) => chipPieces(text, codesOf(req), termPieces);
  return sourceFormsView(req, pieces) || h("div", { class: "card-text card-source" }, pieces(req.src_string));
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
