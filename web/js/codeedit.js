// @ts-check
// What an edit does to a text's locked codes, decided before the browser makes it (no DOM: the edit
// box, chipedit.js, applies the plan). Typing never lands inside a code or replaces one; deleting a code
// is explicit: the first Backspace or Delete that would take one selects it ("armed"), the second, on
// the same selection of the same text, deletes it.

/** @typedef {import("./codes.js").Token} Token */

/**
 * What to do with an edit: let the browser make it; make `text` replace [start, end) instead (the caret
 * after it at `caret`); select [start, end) and wait for a second press to delete it; or refuse it.
 * @typedef {{kind: "allow"} | {kind: "replace", start: number, end: number, text: string, caret: number} | {kind: "arm", start: number, end: number} | {kind: "block", reason: string}} Plan
 */

/** The selection of an edit box as an edit finds it: its text, where the selection is, and the armed range. @typedef {{value: string, start: number, end: number, armed: {start: number, end: number, value: string} | null}} EditState */

const ALLOW = /** @type {Plan} */ ({ kind: "allow" });

/** The range [start, end) grown to hold whole every code it touches (or, collapsed, is inside of). @param {Token[]} tokens @param {number} start @param {number} end */
export function wholeCodes(tokens, start, end) {
  let s = start;
  let e = end;
  for (const t of tokens) {
    const touches = start === end ? t.start < start && start < t.end : t.start < end && t.end > start;
    if (touches) {
      s = Math.min(s, t.start);
      e = Math.max(e, t.end);
    }
  }
  return { start: s, end: e, inside: s < e ? tokens.filter((t) => t.start >= s && t.end <= e) : [] };
}

/** The codes of `tokens` between start and end, as a multiset minus the codes `text` holds. @param {Token[]} inside @param {string} text */
function keptCodes(inside, text) {
  let rest = text;
  const kept = [];
  for (const t of inside) {
    const at = rest.indexOf(t.code);
    if (at === -1) kept.push(t.code);
    else rest = rest.slice(0, at) + rest.slice(at + t.code.length);
  }
  return kept.join("");
}

/** Where a word ends going back from `at` (spaces, then what is not a space), as a browser deletes a word. @param {string} value @param {number} at */
function wordBack(value, at) {
  let i = at;
  while (i > 0 && /\s/.test(value[i - 1])) i--;
  while (i > 0 && !/\s/.test(value[i - 1])) i--;
  return i;
}

/** @param {string} value @param {number} at */
function wordForward(value, at) {
  let i = at;
  while (i < value.length && /\s/.test(value[i])) i++;
  while (i < value.length && !/\s/.test(value[i])) i++;
  return i;
}

/**
 * The plan for an edit of `inputType` (the `beforeinput` event's) inserting `data` into `box`, whose
 * codes are `tokens`.
 * @param {EditState} box @param {Token[]} tokens @param {string} inputType @param {string | null} data @returns {Plan}
 */
export function planEdit(box, tokens, inputType, data) {
  const { value, start, end, armed } = box;
  if (!tokens.length || inputType.startsWith("history") || inputType.startsWith("format")) return ALLOW;
  if (inputType === "insertFromDrop" || inputType === "deleteByDrag") {
    return { kind: "block", reason: "Dragging text is off in a text with codes: cut and paste it instead." };
  }
  if (inputType.startsWith("insert")) {
    const text = inputType === "insertLineBreak" || inputType === "insertParagraph" ? "\n" : data ?? "";
    if (start === end) {
      const inside = tokens.find((t) => t.start < start && start < t.end);
      if (!inside) return ALLOW;
      return { kind: "replace", start: inside.end, end: inside.end, text, caret: inside.end + text.length };
    }
    const whole = wholeCodes(tokens, start, end);
    if (!whole.inside.length) return ALLOW;
    // Typing over codes keeps them: those the new text does not hold itself go after it.
    return { kind: "replace", start: whole.start, end: whole.end, text: text + keptCodes(whole.inside, text), caret: whole.start + text.length };
  }
  if (!inputType.startsWith("delete")) return ALLOW;
  let from = start;
  let to = end;
  if (start === end) {
    const back = inputType.includes("Backward");
    if (inputType === "deleteContentBackward") from = Math.max(0, start - 1);
    else if (inputType === "deleteContentForward") to = Math.min(value.length, end + 1);
    else if (inputType.startsWith("deleteWord")) [from, to] = back ? [wordBack(value, start), start] : [start, wordForward(value, start)];
    else if (back) from = value.lastIndexOf("\n", start - 1) + 1;
    else to = value.indexOf("\n", start) === -1 ? value.length : value.indexOf("\n", start);
    const touched = tokens.filter((t) => t.start < to && t.end > from);
    if (!touched.length) return ALLOW;
    // A code next to the caret (or the caret inside one): select it first.
    const next = back ? touched[touched.length - 1] : touched[0];
    if ((back && next.end >= start) || (!back && next.start <= start)) return { kind: "arm", start: next.start, end: next.end };
    // A word or line reaching past a code: delete up to the code.
    return back ? { kind: "replace", start: next.end, end: start, text: "", caret: next.end } : { kind: "replace", start, end: next.start, text: "", caret: start };
  }
  const whole = wholeCodes(tokens, from, to);
  if (!whole.inside.length) return ALLOW;
  if (armed && armed.value === value && armed.start === whole.start && armed.end === whole.end) {
    return whole.start === start && whole.end === end ? ALLOW : { kind: "replace", start: whole.start, end: whole.end, text: "", caret: whole.start };
  }
  return { kind: "arm", start: whole.start, end: whole.end };
}

/** Where a collapsed caret inside a code goes (the code's end), or null when it is not inside one. @param {Token[]} tokens @param {number} at */
export function outOfCode(tokens, at) {
  const inside = tokens.find((t) => t.start < at && at < t.end);
  return inside ? inside.end : null;
}

/** The caret's next stop moving by one step (a code is one step), or null when the browser's own step is right. @param {Token[]} tokens @param {number} at @param {boolean} forward */
export function stepOver(tokens, at, forward) {
  const code = tokens.find((t) => (forward ? t.start === at : t.end === at));
  return code ? (forward ? code.end : code.start) : null;
}
