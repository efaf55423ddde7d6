// @ts-check
// An edit box that keeps a string's locked codes whole. The box stays a plain textarea (its text is
// what is sent, codes literally in place; undo, paste and input methods are the browser's own); a
// backdrop behind its text draws each code as a chip, the two ends of a pair in one colour. What an
// edit may do to a code is codeedit.js's plan, applied here: typing lands beside a code, never in it;
// deleting one takes a second Backspace or Delete on the selected code. Under the box a line says which
// codes are missing or extra as one types. Keys: F9 (or Alt+Insert) inserts the next missing code at
// the caret, Ctrl+Shift+S copies the source into the box.

import { confirmDialog, h, kbd } from "./dom.js";
import { chipLabel, nextMissing, tokenize } from "./codes.js";
import { outOfCode, planEdit, stepOver } from "./codeedit.js";
import { showBalance } from "./chips.js";

/** @typedef {{codes: readonly string[], source: () => string, onChange?: () => void}} CodeBoxOptions */

/** True while a script writes into a box (its edit is not the person's, and not planned). */
let writing = false;

/**
 * Replace [start, end) of `box` by `text` as an edit of the box's own, which undo takes back, the caret
 * then at `caret`.
 * @param {HTMLTextAreaElement} box @param {number} start @param {number} end @param {string} text @param {number} caret
 */
function writeText(box, start, end, text, caret) {
  box.focus();
  box.setSelectionRange(start, end);
  writing = true;
  const done = text ? document.execCommand("insertText", false, text) : start === end || document.execCommand("delete");
  writing = false;
  if (!done) {
    box.setRangeText(text, start, end, "end");
    box.dispatchEvent(new Event("input", { bubbles: true }));
  }
  box.setSelectionRange(caret, caret);
}

/** The copy-source key: Ctrl+Shift+S (⌘+Shift+S). @param {KeyboardEvent} e */
export const isCopySource = (e) => (e.ctrlKey || e.metaKey) && e.shiftKey && !e.altKey && e.key.toLowerCase() === "s";

/** Put `source` in `box` in place of its text (undo takes it back). @param {HTMLTextAreaElement} box @param {string} source */
export function copySource(box, source) {
  writeText(box, 0, box.value.length, source, source.length);
}

/** Each wrapped box's redraw. @type {WeakMap<HTMLTextAreaElement, () => void>} */
const REDRAW = new WeakMap();

/** What the backdrop copies of its box's style, so that its text lies under the box's letter for letter. */
const COPIED = ["font-family", "font-size", "font-weight", "font-style", "line-height", "letter-spacing", "word-spacing", "tab-size", "text-align", "text-indent",
  "padding-top", "padding-right", "padding-bottom", "padding-left", "border-top-width", "border-right-width", "border-bottom-width", "border-left-width", "box-sizing"];

/**
 * Wrap `box` so that it keeps `codes` whole; returns the wrapper (the box, its backdrop and its line),
 * to put where the box was.
 * @param {HTMLTextAreaElement} box @param {CodeBoxOptions} opts
 */
export function codeBox(box, { codes, source, onChange }) {
  const backdrop = h("div", { class: "code-backdrop", "aria-hidden": "true" });
  const line = h("p", { class: "codes-line", id: box.id ? `${box.id}-codes` : null, "aria-live": "polite" });
  const wrap = h("div", { class: "code-field" }, h("div", { class: "code-edit" }, backdrop, box), line);
  box.classList.add("code-locked");
  if (line.id) box.setAttribute("aria-describedby", line.id);
  /** @type {{start: number, end: number, value: string} | null} */
  let armed = null;
  const tokens = () => tokenize(box.value, codes);

  const redraw = () => {
    const style = getComputedStyle(box);
    for (const p of COPIED) backdrop.style.setProperty(p, style.getPropertyValue(p));
    backdrop.dir = box.dir;
    const text = box.value;
    /** @type {(string | Node)[]} */
    const parts = [];
    let at = 0;
    for (const t of tokens()) {
      if (t.start > at) parts.push(text.slice(at, t.start));
      const isArmed = armed && armed.value === text && t.start >= armed.start && t.end <= armed.end;
      parts.push(h("mark", { class: `code-mark code-${t.kind}${t.pair != null ? ` code-pair-${(t.hue ?? t.pair) % 6}` : ""}${isArmed ? " code-armed" : ""}`, text: t.code }));
      at = t.end;
    }
    parts.push(text.slice(at) + "\u200b"); // a last empty line keeps its height
    backdrop.replaceChildren(...parts);
    backdrop.scrollTop = box.scrollTop;
    showBalance(line, source(), text, codes);
    if (armed && armed.value === text) {
      const shown = tokens().filter((t) => t.start >= /** @type {{start: number}} */ (armed).start && t.end <= /** @type {{end: number}} */ (armed).end);
      line.prepend(h("span", { class: "codes-armed" }, `Press Backspace or Delete again to delete ${shown.map((t) => chipLabel(t.code)).join(" ")}. `));
    }
  };
  REDRAW.set(box, redraw);

  /** @param {number} start @param {number} end @param {string} text @param {number} caret */
  const apply = (start, end, text, caret) => writeText(box, start, end, text, caret);

  box.addEventListener("beforeinput", (e) => {
    if (writing) return;
    // A spelling fix or a paste may carry its text in dataTransfer rather than data.
    const data = e.data ?? e.dataTransfer?.getData("text/plain") ?? null;
    const plan = planEdit({ value: box.value, start: box.selectionStart, end: box.selectionEnd, armed }, tokens(), e.inputType, data);
    if (plan.kind === "allow") {
      armed = null;
      return;
    }
    if (!e.cancelable) return; // an input method's text: the caret was moved out of any code before it began
    e.preventDefault();
    if (plan.kind === "replace") {
      armed = null;
      apply(plan.start, plan.end, plan.text, plan.caret);
    } else if (plan.kind === "arm") {
      armed = { start: plan.start, end: plan.end, value: box.value };
      box.setSelectionRange(plan.start, plan.end);
      redraw();
    } else {
      line.prepend(h("span", { class: "codes-armed", text: `${plan.reason} ` }));
    }
  });

  box.addEventListener("keydown", (e) => {
    if (e.key !== "Backspace" && e.key !== "Delete" && armed) {
      armed = null;
      redraw();
    }
    if (e.isComposing || e.keyCode === 229) {
      snapOut();
      return;
    }
    if (e.key === "F9" || (e.key === "Insert" && e.altKey)) {
      e.preventDefault();
      insertNextCode();
    } else if (isCopySource(e)) {
      e.preventDefault();
      copySource(box, source());
    } else if ((e.key === "ArrowLeft" || e.key === "ArrowRight") && !e.shiftKey && !e.ctrlKey && !e.altKey && !e.metaKey && box.selectionStart === box.selectionEnd) {
      const forward = (e.key === "ArrowRight") !== (getComputedStyle(box).direction === "rtl");
      const to = stepOver(tokens(), box.selectionStart, forward);
      if (to != null) {
        e.preventDefault();
        box.setSelectionRange(to, to);
      }
    }
  });
  // A click inside a code selects the whole code (the chip): Backspace or Delete then deletes it, twice.
  box.addEventListener("mouseup", () => {
    if (box.selectionStart !== box.selectionEnd) return;
    const code = tokens().find((t) => t.start < box.selectionStart && box.selectionStart < t.end);
    if (code) box.setSelectionRange(code.start, code.end);
  });
  box.addEventListener("mousedown", () => {
    armed = null;
  });
  box.addEventListener("compositionstart", snapOut);
  // A missing code's chip under the box: a click inserts it at the caret (the box keeps the focus).
  line.addEventListener("mousedown", (e) => {
    const missing = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (e.target).closest(".codes-missing .code-chip"));
    if (!missing?.dataset.code) return;
    e.preventDefault();
    insertCode(missing.dataset.code);
  });
  box.addEventListener("input", () => {
    redraw();
    onChange?.();
  });
  box.addEventListener("scroll", () => {
    backdrop.scrollTop = box.scrollTop;
  });

  /** Before an input method writes: the caret out of any code, a selection holding codes collapsed after it. */
  function snapOut() {
    const list = tokens();
    const { selectionStart: s, selectionEnd: t } = box;
    if (s === t) {
      const to = outOfCode(list, s);
      if (to != null) box.setSelectionRange(to, to);
    } else if (list.some((c) => c.start < t && c.end > s)) box.setSelectionRange(t, t);
  }

  function insertNextCode() {
    const code = nextMissing(source(), box.value, codes);
    if (code) insertCode(code);
    else line.prepend(h("span", { class: "codes-armed", text: "No code is missing. " }));
  }

  /** @param {string} code */
  function insertCode(code) {
    const at = outOfCode(tokens(), box.selectionEnd) ?? box.selectionEnd;
    apply(at, at, code, at + code.length);
  }

  return wrap;
}

/** Redraw every code box inside `root` (their text was set by a script, which fires no input). @param {ParentNode} root */
export function redrawCodeBoxes(root) {
  for (const box of /** @type {NodeListOf<HTMLTextAreaElement>} */ (root.querySelectorAll("textarea.code-locked"))) REDRAW.get(box)?.();
}

/** Whether any code box inside `root` has codes missing or extra. @param {ParentNode} root */
export function codesOff(root) {
  return [...root.querySelectorAll(".codes-line")].some((l) => /** @type {HTMLElement} */ (l).dataset.state === "off");
}

/** What the keys of a code-keeping box do, for under it. */
export const codeKeysHint = () =>
  h("p", { class: "hint codes-keys" }, kbd("F9"), " inserts the next missing code · ", kbd("Ctrl", "Shift", "S"), " copies the source · Backspace or Delete twice deletes a code");

/**
 * Ask before a text whose codes are off (`said`, which) is saved; the focused box inside `root` gets
 * its caret back when the answer is no.
 * @param {ParentNode} root @param {string} said
 */
export async function askKeepCodes(root, said) {
  const active = document.activeElement;
  const box = active instanceof HTMLTextAreaElement && root.contains(active) ? active : root.querySelector("textarea.code-locked");
  const [start, end] = box instanceof HTMLTextAreaElement ? [box.selectionStart, box.selectionEnd] : [0, 0];
  const ok = await confirmDialog(`The codes of your text do not match the source's (${said}). A code left out or added can break the app or document. Save it anyway?`, {
    title: "Codes missing or extra",
    ok: "Save anyway",
    danger: false,
  });
  if (!ok && box instanceof HTMLTextAreaElement) {
    box.focus();
    box.setSelectionRange(start, end);
  }
  return ok;
}
