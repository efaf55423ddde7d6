// @ts-check
// The status strip, the page phase, the error box and the busy flag.

import { ApiError } from "./http.js";
import { $, h } from "./dom.js";
import { state } from "./state.js";

/** @param {string} phase */
export function setPhase(phase) {
  document.body.dataset.phase = phase;
}

/** @param {string} text @param {{spinner?: boolean}} [opts] */
export function setStatus(text, { spinner = false } = {}) {
  const status = $("status");
  status.replaceChildren();
  if (spinner) status.append(h("span", { class: "spinner", "aria-hidden": "true" }));
  status.append(h("span", { text }));
  status.dataset.empty = text ? "" : "true";
  syncStatusbar();
}

/** On the home screen the status strip shows only when it has something to say. */
export function syncStatusbar() {
  const quiet = $("status").dataset.empty === "true" && $("stop").hidden && $("continue").hidden;
  $("statusbar").classList.toggle("statusbar-quiet", quiet && state.view !== "session");
}

/** @type {(() => void) | null} */
let retryAction = null;

/** @param {unknown} err @param {(() => void) | null} [retry] */
export function showError(err, retry = null) {
  $("error-text").textContent = err instanceof Error ? err.message : String(err);
  if (err instanceof ApiError && err.retryAfter && (err.status === 503 || err.status === 504)) {
    $("error-text").textContent += ` You can retry in about ${err.retryAfter} s.`;
  }
  retryAction = retry;
  $("error-retry").hidden = !retry;
  $("error").hidden = false;
  if (retry) $("error-retry").focus({ preventScroll: true });
}

export function clearError() {
  $("error").hidden = true;
  retryAction = null;
}

/** Run what the error's Retry button offers. */
export function retryNow() {
  const retry = retryAction;
  clearError();
  if (retry) retry();
}

/** @param {boolean} busy */
export function setBusy(busy) {
  state.busy = busy;
  $("stop").hidden = !busy;
  syncStatusbar();
  document.body.classList.toggle("busy", busy);
  for (const b of document.querySelectorAll(".card-actions button, #approve-all, #send-verdicts")) {
    /** @type {HTMLButtonElement} */ (b).disabled = busy;
  }
}
