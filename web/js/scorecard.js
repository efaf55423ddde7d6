// @ts-check
// The Scorecard view of the active file (GET …/scorecard): its MQM issues by error type and severity, the
// MQM score and penalty per 1,000 words, pass or fail against a threshold the reviewer may change, the
// post-edit distance (chrF, TER), and downloads of the scorecard and of the audit trail as CSV.

import { api } from "./api.js";
import { $, h, num, saveBlob } from "./dom.js";
import { categoryLabel } from "./mqm.js";
import { state } from "./state.js";
import { showError } from "./status.js";

/** @typedef {import("./types.js").Scorecard} Scorecard */

let token = 0;

/** The threshold the reviewer typed, or null for the server's default. */
function threshold() {
  const value = /** @type {HTMLInputElement} */ ($("score-threshold")).value.trim();
  const n = Number(value);
  return value && Number.isFinite(n) && n >= 0 && n <= 100 ? n : null;
}

/** Load and show the active file's scorecard (when the view is open). */
export async function refreshScorecard() {
  const sid = state.sessionId;
  const fileId = state.activeFileId;
  if (!sid || !fileId || $("scorecard").hidden) return;
  const mine = ++token;
  try {
    const card = /** @type {Scorecard} */ (await api.scorecard(sid, fileId, threshold()));
    if (mine === token) renderScorecard(card);
  } catch (err) {
    if (mine !== token) return;
    const e = /** @type {import("./http.js").ApiError} */ (err);
    $("score-body").replaceChildren(
      h("p", { class: "hint", text: e.status === 404 ? "This server has no scorecards yet." : `The scorecard could not be loaded: ${e.message}` }),
    );
  }
}

/** @param {number | null} value @param {number} [digits] */
const figure = (value, digits = 1) => (value == null ? "—" : value.toLocaleString(undefined, { maximumFractionDigits: digits }));

/** Show a scorecard. @param {Scorecard} card */
export function renderScorecard(card) {
  if (document.activeElement !== $("score-threshold")) /** @type {HTMLInputElement} */ ($("score-threshold")).value = String(card.threshold);
  const rows = card.issues.filter((r) => r.minor || r.major || r.critical);
  const verdict = h(
    "p",
    { class: `score-verdict score-${card.result}`, id: "score-verdict" },
    h("strong", { text: card.result === "pass" ? "Pass" : "Fail" }),
    card.score == null
      ? " · no written unit evaluated yet"
      : ` · MQM score ${figure(card.score, 2)} (threshold ${figure(card.threshold, 2)})`,
  );
  const facts = h(
    "dl",
    { class: "score-facts" },
    fact("Words evaluated", num.format(card.words)),
    fact("Penalty points", num.format(card.penalty)),
    fact("Penalty per 1,000 words", figure(card.penaltyPer1000Words)),
    fact("Issues", `${num.format(card.totals.minor || 0)} minor · ${num.format(card.totals.major || 0)} major · ${num.format(card.totals.critical || 0)} critical`),
    fact(
      "Post-edit distance",
      card.postEdit.units
        ? `${num.format(card.postEdit.edited)} of ${num.format(card.postEdit.units)} units edited · chrF ${figure(card.postEdit.chrF, 2)} · TER ${figure(card.postEdit.ter, 2)}`
        : "no unit from a proposal yet",
    ),
  );
  const table = rows.length
    ? h(
        "table",
        { class: "score-table" },
        h("caption", { class: "visually-hidden", text: "MQM issues by error type and severity" }),
        h("thead", {}, h("tr", {}, ["Error type", "Minor", "Major", "Critical", "Penalty"].map((t) => h("th", { scope: "col", text: t })))),
        h(
          "tbody",
          {},
          rows.map((r) =>
            h(
              "tr",
              {},
              h("th", { scope: "row", text: categoryLabel(r.category) }),
              [r.minor, r.major, r.critical, r.penalty].map((n) => h("td", { text: num.format(n) })),
            ),
          ),
        ),
        h(
          "tfoot",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "row", text: "Total" }),
            [card.totals.minor || 0, card.totals.major || 0, card.totals.critical || 0, card.penalty].map((n) => h("td", { text: num.format(n) })),
          ),
        ),
      )
    : h("p", { class: "hint", text: "No MQM issue recorded: name one when you edit, reject or revise a unit." });
  $("score-body").replaceChildren(verdict, facts, table);
}

/** @param {string} term @param {string} value */
const fact = (term, value) => h("div", { class: "score-fact" }, h("dt", { text: term }), h("dd", { text: value }));

/** @param {"scorecard" | "audit"} kind */
async function download(kind) {
  const sid = state.sessionId;
  const file = state.files.find((f) => f.fileId === state.activeFileId);
  if (!sid || !file) return;
  const path = kind === "scorecard" ? api.scorecardCsvPath(sid, file.fileId, threshold()) : api.auditPath(sid, file.fileId);
  try {
    const { blob, name } = await api.download(path, `${file.name}.${kind}.csv`);
    saveBlob(blob, name);
  } catch (err) {
    showError(/** @type {Error} */ (err));
  }
}

export function setupScorecard() {
  let typing = 0;
  $("score-threshold").addEventListener("input", () => {
    clearTimeout(typing);
    typing = window.setTimeout(refreshScorecard, 300);
  });
  $("score-csv").addEventListener("click", () => download("scorecard"));
  $("audit-csv").addEventListener("click", () => download("audit"));
}
