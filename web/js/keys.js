// @ts-check
// The review shortcuts: A approve, E edit, R reject, J/K next/previous, Shift+A approve all,
// C concordance, / search the segments. Keys typed into a field, a dialog or the segment list are not shortcuts.

import { $ } from "./dom.js";
import { state } from "./state.js";

/**
 * What the keys do to the batch's cards (given by `setupKeys`).
 * @typedef {{approve: (i: number) => void, approveAll: () => void, edit: (i: number) => void, reject: (i: number) => void, focus: (i: number) => void, concordance: (i: number) => void}} KeyActions
 */

/** Listen to the page's keys. @param {KeyActions} actions */
export function setupKeys(actions) {
  document.addEventListener("keydown", (e) => onKeydown(e, actions));
}

/** @param {KeyboardEvent} e @param {KeyActions} actions */
function onKeydown(e, { approve, approveAll, edit, reject, focus, concordance }) {
  if (e.defaultPrevented || e.isComposing) return;
  if (document.querySelector("dialog[open]")) return;
  const t = /** @type {HTMLElement | null} */ (e.target);
  if (t && t.closest && t.closest("input, textarea, select, .seglist, [contenteditable]:not([contenteditable='false'])")) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (state.view !== "session") return;
  if (e.key === "/") {
    e.preventDefault();
    if ($("workbench").hidden) $("tab-segments").click();
    $("seg-search").focus();
    $("seg-search").select();
    return;
  }
  if (state.busy || !state.batch.length) return;
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  const i = state.current;
  if (!state.batch[i]) return;
  let handled = true;
  if (key === "a" && e.shiftKey) approveAll();
  else if (e.shiftKey) handled = false;
  else if (key === "a") approve(i);
  else if (key === "e") edit(i);
  else if (key === "r") reject(i);
  else if (key === "j") focus(i + 1);
  else if (key === "k") focus(i - 1);
  else if (key === "c" || key === "F3") concordance(i);
  else handled = false;
  if (handled) e.preventDefault();
}
