// @ts-check
// The review screen's note on where the session stands (API.md "Sessions": `state`, `error`,
// `segmentsLeft`): a step that failed, or a session the server stopped (its model's proposals kept
// being refused), with its error and what a person can do: switch the model when more than one is
// configured (PATCH /api/sessions/{id} {"model"}), write the agent an instruction, or continue
// anyway; the same for a loop the client paused itself (steps that brought no proposal and no
// progress); and segments left unwritten when the loop ended. A `waiting` session is counted down
// in the status strip (loop.js, client.waitThenResume).

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
 * What the note's buttons do: go on after switching the model, ask the agent for the segments left,
 * let the human write the agent an instruction, or continue as it was.
 * @typedef {{onSwitched: () => void, onAsk: (text: string) => void, onInstruct: () => void, onContinue: () => void}} HoldActions
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
  const held = view.state === "failed" || view.state === "stopped";
  const list = held ? await configuredModels() : [];
  if (sid !== state.sessionId) return null;
  const note = sessionNote(view, { now: Date.now(), models: list.length });
  if (!note || note.kind === "waiting") {
    if ($("hold").dataset.kind !== "stalled") clearHold(); // the client's own pause stays until the human acts
    return note;
  }
  const box = $("hold");
  box.dataset.kind = note.kind;
  $("hold-model").hidden = true;
  $("hold-ask").hidden = true;
  $("hold-actions").hidden = true;
  if (note.kind === "failed" || note.kind === "stopped") {
    const head = note.kind === "stopped" ? "The session was stopped. " : "The last step failed. ";
    $("hold-text").replaceChildren(h("strong", { text: head }), note.text);
    $("hold-hint").textContent = note.hint;
    offerModels(list, view.model);
    $("hold-actions").hidden = false;
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

/** The choice of another model, when more than one is configured. @param {{name: string}[]} list @param {string} [model] the session's */
function offerModels(list, model) {
  if (list.length < 2) return;
  const select = /** @type {HTMLSelectElement} */ ($("hold-model-select"));
  select.replaceChildren(...list.map((m) => h("option", { value: m.name }, modelLabel(/** @type {any} */ (m)))));
  const current = model && list.some((m) => m.name === model) ? model : list[0].name;
  // Offer another model than the one that failed, first.
  select.value = list.find((m) => m.name !== current)?.name ?? current;
  $("hold-current").textContent = model ? `Now: ${model}.` : "";
  $("hold-model").hidden = false;
}

/**
 * The client paused the loop itself: `steps` steps in a row brought no proposal and no progress (a
 * model whose calls keep being refused), so it spends nothing more until the human acts.
 * @param {number} steps @param {string} [model] the session's model (another one is offered first)
 */
export async function showStall(steps, model) {
  const sid = state.sessionId;
  const list = await configuredModels();
  if (sid !== state.sessionId) return;
  const box = $("hold");
  box.dataset.kind = "stalled";
  $("hold-ask").hidden = true;
  $("hold-model").hidden = true;
  $("hold-text").replaceChildren(
    h("strong", { text: "Paused: the agent is not getting anywhere. " }),
    `Its last ${steps} steps brought no proposal to review and no progress (its proposals may keep being refused).`,
  );
  const fix = list.length > 1 ? "Switch the model below, or write the agent an instruction" : "Write the agent an instruction";
  $("hold-hint").textContent = `Nothing more is spent until you act. ${fix}, or continue anyway.`;
  offerModels(list, model);
  $("hold-actions").hidden = false;
  box.hidden = false;
  $("hold-instruct").focus({ preventScroll: true });
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
  $("hold-instruct").addEventListener("click", () => actions.onInstruct());
  $("hold-continue").addEventListener("click", () => {
    if (state.busy) return;
    clearHold();
    actions.onContinue();
  });
  $("hold-ask").addEventListener("click", () => {
    if (state.busy) return;
    const text = $("hold-ask").dataset.text || "Translate the segments not translated yet.";
    clearHold();
    actions.onAsk(text);
  });
}
