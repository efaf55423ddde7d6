// @ts-check
// The review shortcuts: A approve, E edit, R reject, J/K next/previous, Shift+A approve all,
// / search the segments. Keys typed into a field, a dialog or the segment list are not shortcuts.

import { approve, approveAll, focusCard, openMode } from "./cards.js";
import { $ } from "./dom.js";
import { state } from "./state.js";

/** @param {KeyboardEvent} e */
export function onKeydown(e) {
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
  else if (key === "e") openMode(i, "edit");
  else if (key === "r") openMode(i, "reject");
  else if (key === "j") focusCard(i + 1);
  else if (key === "k") focusCard(i - 1);
  else handled = false;
  if (handled) e.preventDefault();
}
