// @ts-check
// The session's routing in the top bar: "Auto-approve: off" or "estimate ≥ 90" (the session's
// `autoApprove`); changing it PATCHes the session (keeping its sample, a project's audit of the
// rule), and the screen is redrawn from the session the server answers (its pending reviews and
// files), so it never shows what the change made stale.

import { api } from "./api.js";
import { $ } from "./dom.js";
import { state } from "./state.js";
import { setStatus, showError } from "./status.js";

/** What a change triggers outside the select (given by `setupAutoApprove`): the screen redrawn from the session's view. */
let changed = (/** @type {import("./types.js").SessionView} */ _view) => {};

/** What the select shows now ("" for off). */
let shown = "";
/** The session's sample (a project's audit of the rule), kept when only the threshold changes. */
let sample = 0;

/** Show a session view's routing (null: a session not loaded yet, or off). @param {Partial<import("./types.js").SessionView> | null} view */
export function showAutoApprove(view) {
  const min = view?.autoApprove?.minEstimate;
  shown = typeof min === "number" ? String(min) : "";
  sample = view?.autoApprove?.sample ?? 0;
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
    const rule = value ? { minEstimate: Number(value), ...(sample ? { sample } : {}) } : null;
    const view = await api.updateSession(sid, { autoApprove: rule });
    if (sid !== state.sessionId) return;
    showAutoApprove(view);
    changed(view);
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

/** Wire the select. @param {{changed: (view: import("./types.js").SessionView) => void}} actions */
export function setupAutoApprove({ changed: onChanged }) {
  changed = onChanged;
  $("auto-approve").addEventListener("change", apply);
  showAutoApprove(null);
}
