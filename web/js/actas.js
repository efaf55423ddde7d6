// @ts-check
// Local mode's "act as": the server honours the header `X-Act-As: <sub>` only in local mode (no
// sign-in, not in Lambda; docs/api.md "Identity"), to try a team on one machine. The field shows only
// when the UI signs in with nothing (auth.json's "none"); the identity is this tab's (sessionStorage),
// so two tabs can be two members. Empty: the local user, the manager of every project.

import { $ } from "./dom.js";
import { subProblem } from "./teams.js";

const KEY = "actAs";

/** The identity this tab acts as, "" for the local user. */
export function actingAs() {
  try {
    return sessionStorage.getItem(KEY) || "";
  } catch {
    return "";
  }
}

/** The header every API request carries while acting as someone. @returns {Record<string, string>} */
export function actAsHeaders() {
  const sub = actingAs();
  return sub ? { "X-Act-As": sub } : {};
}

/** Who the caller is, as the UI can tell: the acted-as identity, or the local user. */
export const localIdentity = () => actingAs() || "local";

/**
 * Show the field (local mode only) and apply a change: the page's data is read again as that person.
 * @param {{local: boolean, changed: () => void}} opts
 */
export function setupActAs({ local, changed }) {
  const box = $("act-as");
  box.hidden = !local;
  if (!local) return;
  const input = /** @type {HTMLInputElement} */ ($("act-as-input"));
  input.value = actingAs();
  const apply = () => {
    const sub = input.value.trim();
    if (sub === actingAs()) return;
    const problem = sub ? subProblem(sub) : null;
    input.setCustomValidity(problem || "");
    input.title = problem || "Requests act as this identity (local mode only). Empty: the local user.";
    if (problem) {
      input.reportValidity();
      return;
    }
    try {
      if (sub) sessionStorage.setItem(KEY, sub);
      else sessionStorage.removeItem(KEY);
    } catch {
      /* storage disabled: this tab cannot keep it */
    }
    changed();
  };
  input.addEventListener("change", apply);
  input.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      apply();
    }
    e.stopPropagation(); // typing never triggers the review's shortcuts
  });
}
