// @ts-check
// The session's routing in the top bar: "Auto-approve: off" or "estimate ≥ 90" (the session's
// `autoApprove`); changing it PATCHes the session, the next step uses it.

import { api } from "./api.js";
import { $ } from "./dom.js";
import { state } from "./state.js";
import { setStatus, showError } from "./status.js";

/** What the select shows now ("" for off). */
let shown = "";

/** Show a session view's routing (null: a session not loaded yet, or off). @param {Partial<import("./types.js").SessionView> | null} view */
export function showAutoApprove(view) {
  const min = view?.autoApprove?.minEstimate;
  shown = typeof min === "number" ? String(min) : "";
  const select = /** @type {HTMLSelectElement} */ ($("auto-approve"));
  if (shown && ![...select.options].some((o) => o.value === shown)) {
    select.append(new Option(`estimate ≥ ${shown}`, shown));
  }
  select.value = shown;
}

async function apply() {
  const select = /** @type {HTMLSelectElement} */ ($("auto-approve"));
  const sid = state.sessionId;
  if (!sid || select.value === shown) return;
  const value = select.value;
  select.disabled = true;
  try {
    const view = await api.updateSession(sid, { autoApprove: value ? { minEstimate: Number(value) } : null });
    if (sid !== state.sessionId) return;
    showAutoApprove(view);
    setStatus(
      value
        ? `Proposals with an estimate of ${value} or more and no QA warning are now approved without a card.`
        : "Auto-approve is off: every proposal gets a card.",
    );
  } catch (err) {
    select.value = shown;
    showError(/** @type {Error} */ (err), null);
  } finally {
    select.disabled = false;
  }
}

export function setupAutoApprove() {
  $("auto-approve").addEventListener("change", apply);
  showAutoApprove(null);
}
