// @ts-check
// Word diffs for the edit view, on the vendored jsdiff (web/vendor/diff): what was kept, removed and
// added, and a summary that names a change even when no word changed (markup, punctuation, spacing).

import { diffWordsWithSpace } from "../vendor/diff/diff/word.js";
import { plural } from "./text.js";

/** @typedef {{op: "eq" | "del" | "ins", text: string}} DiffOp */

/**
 * Diff `before` against `after`; within a run of changes, deletions come first.
 * @param {string} before
 * @param {string} after
 * @returns {DiffOp[]}
 */
export function diffWords(before, after) {
  /** @type {DiffOp[]} */
  const out = [];
  let dels = "";
  let ins = "";
  const flush = () => {
    if (dels) out.push({ op: "del", text: dels });
    if (ins) out.push({ op: "ins", text: ins });
    dels = ins = "";
  };
  const parts = diffWordsWithSpace(before, after) || [];
  parts.forEach((part, k) => {
    const between = !part.added && !part.removed && /^\s+$/.test(part.value) && k > 0 && k < parts.length - 1;
    const prev = parts[k - 1];
    const next = parts[k + 1];
    if (between && (prev.added || prev.removed) && (next.added || next.removed)) {
      // "a b" → "x y" reads as one phrase replaced, not two words.
      dels += part.value;
      ins += part.value;
    } else if (part.removed) dels += part.value;
    else if (part.added) ins += part.value;
    else {
      flush();
      const last = out[out.length - 1];
      if (last && last.op === "eq") last.text += part.value;
      else out.push({ op: "eq", text: part.value });
    }
  });
  flush();
  return out;
}

const WORD = /[\p{L}\p{N}]+/gu;
const MARKUP = /[`*_~#>[\]()!|<>]/u;

/** Counts for a summary: words removed and added. @param {DiffOp[]} ops */
export function diffStats(ops) {
  let removed = 0;
  let added = 0;
  for (const op of ops) {
    const words = (op.text.match(WORD) || []).length;
    if (op.op === "del") removed += words;
    if (op.op === "ins") added += words;
  }
  return { removed, added };
}

/**
 * One line that says what an edit changed: words, else markup, punctuation or spacing; "no change"
 * only when the texts are equal.
 * @param {string} before
 * @param {string} after
 */
export function describeEdit(before, after) {
  if (before === after) return "no change";
  const ops = diffWords(before, after);
  const { removed, added } = diffStats(ops);
  if (removed || added) {
    const parts = [];
    if (removed) parts.push(`${plural(removed, "word", "words")} removed`);
    if (added) parts.push(`${plural(added, "word", "words")} added`);
    return parts.join(", ");
  }
  /** @param {"del" | "ins"} kind */
  const symbols = (kind) =>
    ops
      .filter((o) => o.op === kind)
      .map((o) => o.text.replace(/\s+/g, ""))
      .join("");
  const gone = symbols("del");
  const came = symbols("ins");
  if (!gone && !came) return "only spacing changed";
  const markup = MARKUP.test(gone + came);
  const what = markup ? "markup" : "punctuation";
  /** @param {string} s */
  const show = (s) => Array.from(new Set(Array.from(s))).map((c) => `“${c}”`).join(" ");
  const parts = [];
  if (gone) parts.push(`${plural(Array.from(gone).length, "character", "characters")} removed (${show(gone)})`);
  if (came) parts.push(`${plural(Array.from(came).length, "character", "characters")} added (${show(came)})`);
  return `only ${what} changed: ${parts.join(", ")}`;
}

/**
 * Render ops into `container` as text with <del>/<ins> marks.
 * @param {HTMLElement} container
 * @param {DiffOp[]} ops
 */
export function renderDiff(container, ops) {
  container.replaceChildren();
  for (const op of ops) {
    if (op.op === "eq") {
      container.append(op.text);
    } else {
      const mark = document.createElement(op.op);
      mark.textContent = op.text;
      mark.title = op.op === "del" ? "removed" : "added";
      container.append(mark);
    }
  }
}
