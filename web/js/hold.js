// @ts-check
// The review screen's note on where the session stands (API.md "Sessions": `state`, `error`,
// `segmentsLeft`): a failed step with its error and what helps (switching the model when more than
// one is configured: PATCH /api/sessions/{id} {"model"}), and segments left unwritten when the loop
// ended. A `waiting` session is counted down in the status strip by app.js (client.waitThenResume).

import { api } from "./api.js";
import { modelLabel } from "./analysis.js";
import { $, h } from "./dom.js";
import { sessionNote } from "./jobmodel.js";
import { state } from "./state.js";

/** @typedef {import("./types.js").SessionView} SessionView */

/** @type {{name: string, default: boolean, price: {input: number, output: number} | null}[] | null} */
let models = null;

/** The configured models, asked once (none when the server cannot say). */
async function configuredModels() {
  if (models) return models;
  try {
    models = (await api.models()).models || [];
  } catch {
    return [];
  }
  return /** @type {any[]} */ (models);
}

/**
 * What the note's buttons do: go on after switching the model, or ask the agent for the segments left.
 * @typedef {{onSwitched: () => void, onAsk: (text: string) => void}} HoldActions
 */

/** Hide the note. */
export function clearHold() {
  $("hold").hidden = true;
  $("hold").dataset.kind = "";
}

/**
 * Show what the session view says, when it says something; hides the note otherwise.
 * @param {Partial<SessionView>} view
 * @returns {Promise<ReturnType<typeof sessionNote>>}
 */
export async function showHold(view) {
  const sid = state.sessionId;
  const list = view.state === "failed" ? await configuredModels() : [];
  if (sid !== state.sessionId) return null;
  const note = sessionNote(view, { now: Date.now(), models: list.length });
  if (!note || note.kind === "waiting") {
    clearHold();
    return note;
  }
  const box = $("hold");
  box.dataset.kind = note.kind;
  $("hold-model").hidden = true;
  $("hold-ask").hidden = true;
  if (note.kind === "failed") {
    $("hold-text").replaceChildren(h("strong", { text: "The last step failed. " }), note.text);
    $("hold-hint").textContent = note.hint;
    if (list.length > 1) {
      const select = /** @type {HTMLSelectElement} */ ($("hold-model-select"));
      select.replaceChildren(...list.map((m) => h("option", { value: m.name }, modelLabel(m))));
      const current = view.model && list.some((m) => m.name === view.model) ? view.model : list[0].name;
      // Offer another model than the one that failed, first.
      select.value = list.find((m) => m.name !== current)?.name ?? current;
      $("hold-current").textContent = view.model ? `Now: ${view.model}.` : "";
      $("hold-model").hidden = false;
    }
  } else {
    $("hold-text").replaceChildren(h("strong", { text: note.text }));
    $("hold-hint").textContent = "The agent stopped before writing them. Ask it to go on, or download the translation with the source text in their place.";
    const n = view.segmentsLeft ?? 0;
    $("hold-ask").hidden = false;
    $("hold-ask").dataset.text = `Translate the ${n === 1 ? "segment" : `${n} segments`} not translated yet.`;
  }
  box.hidden = false;
  return note;
}

/** Wire the note's buttons. @param {HoldActions} actions */
export function setupHold(actions) {
  $("hold-switch").addEventListener("click", async () => {
    const sid = state.sessionId;
    if (!sid || state.busy) return;
    const model = /** @type {HTMLSelectElement} */ ($("hold-model-select")).value;
    $("hold-switch").disabled = true;
    try {
      await api.updateSession(sid, { model });
      if (sid !== state.sessionId) return;
      clearHold();
      actions.onSwitched();
    } catch (err) {
      $("hold-hint").textContent = `The model was not switched: ${err instanceof Error ? err.message : String(err)}`;
    } finally {
      $("hold-switch").disabled = false;
    }
  });
  $("hold-ask").addEventListener("click", () => {
    if (state.busy) return;
    const text = $("hold-ask").dataset.text || "Translate the segments not translated yet.";
    clearHold();
    actions.onAsk(text);
  });
}
