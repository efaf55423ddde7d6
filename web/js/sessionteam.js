// @ts-check
// A project's session on the review screen (API.md "Projects and teams"): the project and the
// caller's role in the top bar, who holds the session and until when (the Session's `heldBy`,
// `until`), and a step refused because another member drives it (409 with `heldBy`, `until`): said
// with the holder and the time, and for a manager a "Take over" that sends the step again with
// `"takeOver": true`.

import { localIdentity } from "./actas.js";
import { signInRequired } from "./auth.js";
import { $ } from "./dom.js";
import { myProjects } from "./projects.js";
import { api } from "./api.js";
import { state } from "./state.js";
import { abilities, heldText, languagesText, ROLE_LABEL, roleIn } from "./teams.js";

/** @typedef {import("./types.js").SessionView} SessionView */
/** @typedef {import("./types.js").NextBody} NextBody */

const clock = new Intl.DateTimeFormat(undefined, { timeStyle: "short" });
const time = (/** @type {Date} */ d) => clock.format(d);

/** Who the caller is, when the UI can tell (local mode: the acted-as identity or the local user). */
const me = () => (signInRequired() ? null : localIdentity());

/** @type {(() => void) | null} what the page does once the project's role is known (the segment list's queue) */
let known = null;

/** Read again what depends on the role (given by app.js). @param {() => void} then */
export function setupSessionTeam(then) {
  known = then;
}

/**
 * The session's project, read beside it: the caller's role and languages there, and the project's
 * review steps. A session of one's own has none (nothing is asked). Called before the session's
 * panels load, so that the memory panel reads the project's memory.
 * @param {Partial<SessionView>} view @param {string | null} [sid] the session being entered
 */
export async function showTeam(view, sid = state.sessionId) {
  const project = view.project ?? null;
  state.team = { project, name: null, role: null, languages: ["*"], review: view.review ?? null };
  showHeld(view);
  renderBadge();
  if (!project) return;
  try {
    const [mine, full] = await Promise.all([myProjects(true), api.project(project)]);
    if (sid !== state.sessionId) return;
    // The session's own setting first (a manager may change one session's), else its project's.
    state.team = { ...state.team, project, ...roleIn(project, mine), review: view.review ?? full.review };
    if (!state.team.name) state.team.name = full.name;
  } catch {
    /* the badge says the project's id; the server still decides every action */
  }
  renderBadge();
  if (claimed && !$("claimed").hidden) showClaimed(...claimed); // a manager's Take over, now the role is known
  known?.();
}

/** @type {Parameters<typeof showClaimed> | null} the refused step shown, until the next one */
let claimed = null;

/** The memory panel names whose memory it shows: the caller's own, or the project's (shared). */
function renderMemoryTitle() {
  const t = state.team;
  $("memory-title").textContent = t.project ? `${t.name || "The project"}'s memory` : "Your memory";
  $("memory-hint").textContent = t.project
    ? "What the agent learned from the project's members (their edits and rejections) and what they added. Every session of the project shares it; managers and reviewers change it. The agent sees it, and cards warn when a proposal breaks a term."
    : "What the agent learned from your edits and rejections, and what you added. It applies to all your sessions; the agent sees it, and cards warn when a proposal breaks a term.";
}

function renderBadge() {
  renderMemoryTitle();
  const t = state.team;
  const badge = $("team-badge");
  badge.hidden = !t.project;
  $("export-reviewed").hidden = t.review !== "double" && t.review !== "pretranslate";
  if (!t.project) return;
  const role = t.role ? `${ROLE_LABEL[t.role]} · ${languagesText(t.languages)}` : "";
  const who = me(); // local mode: whom this tab acts as
  badge.textContent = `${t.name || "Project"}${role ? ` · ${role}` : ""}${t.review === "double" ? " · two review steps" : ""}`;
  badge.title = who ? `You act as ${who} (local mode)` : "";
  if (who && who !== "local") badge.textContent += ` · as ${who}`;
}

/** The holder in the top bar, while the hold lasts and is another member's. @param {Partial<SessionView>} view */
export function showHeld(view) {
  const text = heldText(view, { now: Date.now(), me: me(), time });
  $("held-by").hidden = !text;
  $("held-by").textContent = text || "";
}

/** A step of this page committed: in a project's session, the caller holds it now. */
export function drove() {
  showHeld({});
  if (state.team.project) state.team.drove = true;
}

/**
 * Leaving a project's session this page drove: its hold is let go at once (DELETE …/claim), so
 * another member may drive it without waiting for the hold to end. Best effort: the hold ends by
 * itself after a few minutes anyway.
 */
export function letGo() {
  const sid = state.sessionId;
  if (!sid || !state.team.project || !state.team.drove) return;
  state.team.drove = false;
  api.releaseClaim(sid).catch(() => {});
}

/** Hide the note on a refused step. */
export function clearClaimed() {
  $("claimed").hidden = true;
  claimed = null;
}

/**
 * A step another member's hold refused: who holds it and until when, what to do, and a manager's
 * take over (the same step again with `takeOver`).
 * @param {{heldBy: string | null, until: string | null, message: string, retry: {body: NextBody, key: string} | null}} err
 * @param {(body: NextBody) => void} send
 */
export function showClaimed(err, send) {
  claimed = [err, send];
  const text = heldText({ heldBy: err.heldBy, until: err.until }, { now: Date.now(), time }) || `Held by ${err.heldBy}`;
  $("claimed-text").textContent = `${text}.`;
  const manager = abilities(state.team.role).manage;
  $("claimed-hint").textContent = manager
    ? "They are driving this session: nothing was sent. Wait until their hold ends, or take it over (their next step is then refused)."
    : "They are driving this session: nothing was sent. Try again when their hold ends; a manager can take it over.";
  const take = $("claimed-take");
  take.hidden = !manager || !err.retry;
  take.onclick = () => {
    if (!err.retry || state.busy) return;
    clearClaimed();
    send({ ...err.retry.body, takeOver: true });
  };
  $("claimed").hidden = false;
  $("claimed").scrollIntoView({ block: "nearest" });
  showHeld({ heldBy: err.heldBy, until: err.until });
}
