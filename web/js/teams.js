// @ts-check
// Projects and teams without the DOM (API.md "Projects and teams"): what a role may do, whose
// languages cover a session, a member's languages as typed, who holds a session and until when, a
// project's session as its list shows it, a comment as the server takes it, and the reviewer's queue.

/** @typedef {import("./types.js").Role} Role */
/** @typedef {import("./types.js").ProjectEntry} ProjectEntry */
/** @typedef {import("./types.js").Thread} Thread */

/** @type {Record<Role, string>} */
export const ROLE_LABEL = { manager: "Manager", reviewer: "Reviewer", translator: "Translator" };

export const ROLES = /** @type {Role[]} */ (["translator", "reviewer", "manager"]);

/** The longest identity (`sub`) and comment the server takes. */
export const MAX_SUB = 256;
export const MAX_COMMENT = 2000;

/**
 * What a role may do in its project: manage (settings, members, new sessions), review (approve or
 * edit `translated` units, change the glossary), drive (steps, verdicts) in its languages.
 * @param {Role | null | undefined} role
 */
export function abilities(role) {
  return {
    manage: role === "manager",
    review: role === "manager" || role === "reviewer",
    drive: role === "manager" || role === "reviewer" || role === "translator",
  };
}

/**
 * Whether a member's languages cover a session's target language: `*` covers all; a tag covers
 * exactly that language (`fr` does not cover `fr-CA`), compared without case. A session without a
 * language is covered only by `*`.
 * @param {string[]} languages @param {string | null | undefined} tag
 */
export function covers(languages, tag) {
  if (languages.includes("*")) return true;
  if (!tag) return false;
  const t = tag.toLowerCase();
  return languages.some((l) => l.toLowerCase() === t);
}

/** A member's languages in words: "all languages", or the tags. @param {string[]} languages */
export function languagesText(languages) {
  return !languages.length || languages.includes("*") ? "all languages" : languages.join(", ");
}

/**
 * The languages a manager typed for a member ("fr, de", "French", "*" or "all"): a list the server
 * takes (it normalises names to tags and refuses what is not a language, in its own words).
 * @param {string} text
 * @returns {{languages: string[]} | {error: string}}
 */
export function parseLanguages(text) {
  const parts = text
    .split(/[,;]/)
    .map((p) => p.trim())
    .filter(Boolean);
  if (!parts.length) return { error: "Give the member's languages (fr, de), or * for all." };
  if (parts.some((p) => p === "*" || p.toLowerCase() === "all")) {
    return parts.length === 1 ? { languages: ["*"] } : { error: "* (all languages) goes alone." };
  }
  return { languages: [...new Set(parts)] };
}

/**
 * A member's identity as typed: the server's rules (1 to 256 characters, not blank, not a project's
 * own key), said before anything is sent. @param {string} sub
 * @returns {string | null} what is wrong, or null
 */
export function subProblem(sub) {
  if (!sub.trim()) return "Give the member's identity (their sign-in subject).";
  if (sub.length > MAX_SUB) return `An identity has at most ${MAX_SUB} characters.`;
  if (sub.startsWith("project:")) return "Identities beginning “project:” are the projects' own.";
  return null;
}

/** A comment as typed: what is wrong, or null. @param {string} text */
export function commentProblem(text) {
  if (!text.trim()) return "Write a comment first.";
  if (text.length > MAX_COMMENT) return `A comment has at most ${MAX_COMMENT.toLocaleString("en")} characters (this one has ${text.length.toLocaleString("en")}).`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) return "The comment holds a control character; remove it.";
  return null;
}

/**
 * Who holds a session, in words, while the hold lasts: "Held by bob until 22:40"; null when nobody
 * does, the hold has ended, or it is `me` driving.
 * @param {{heldBy?: string | null, until?: string | null}} view
 * @param {{now: number, me?: string | null, time?: (d: Date) => string}} opts
 */
export function heldText(view, { now, me = null, time = (d) => d.toISOString().slice(11, 16) + " UTC" }) {
  if (!view.heldBy || (me != null && view.heldBy === me)) return null;
  const until = view.until ? Date.parse(view.until) : NaN;
  if (Number.isFinite(until) && until <= now) return null;
  return Number.isFinite(until) ? `Held by ${view.heldBy} until ${time(new Date(until))}` : `Held by ${view.heldBy}`;
}

/**
 * A project's session as its list shows it: the language, where it stands, how far it is, and who
 * holds it (when the list says).
 * @param {{id: string, targetLanguage?: string | null, state?: string, progress?: {translatedChars: number, totalChars: number, complete?: boolean}, heldBy?: string | null, until?: string | null}} s
 * @param {{now: number, name?: (tag: string) => string, time?: (d: Date) => string}} opts
 */
export function projectSessionLine(s, { now, name = (t) => t, time }) {
  const p = s.progress;
  const pct = p && p.totalChars ? Math.floor((100 * p.translatedChars) / p.totalChars) : 0;
  const where = p?.complete ? "complete" : s.state && s.state !== "running" ? s.state : `${pct}% translated`;
  const held = heldText(s, { now, time });
  return {
    language: s.targetLanguage ? name(s.targetLanguage) : "no language yet",
    where,
    held,
  };
}

/**
 * The project the switcher has chosen, from what was remembered and the caller's projects now: the
 * remembered one while the caller is still a member, else "Personal" (null).
 * @param {string | null} remembered @param {ProjectEntry[]} projects
 */
export function chosenProject(remembered, projects) {
  return remembered && projects.some((p) => p.id === remembered) ? remembered : null;
}

/**
 * What the caller does in a session, from the session's project and the caller's projects: the
 * role and languages there (none for one of the caller's own sessions: they do everything).
 * @param {string | null | undefined} projectId @param {ProjectEntry[] | null} projects
 * @returns {{role: Role | null, languages: string[], name: string | null}}
 */
export function roleIn(projectId, projects) {
  if (!projectId) return { role: null, languages: ["*"], name: null };
  const entry = (projects || []).find((p) => p.id === projectId);
  return entry ? { role: entry.role, languages: entry.languages, name: entry.name } : { role: null, languages: [], name: null };
}

/** The review modes in which what is written first is `translated`, for a reviewer to pass: a second
 * review (a translator, then a reviewer) and a pre-translation (the model, then a reviewer). */
const TWO_STEPS = new Set(["double", "pretranslate"]);

/**
 * The reviewer's queue: the segment list's filter for the second step (units a translator approved
 * or edited, or the model pre-translated: `translated`), and whether the caller gets it: a session
 * that reviews in two steps, a role that reviews (the owner of a session of their own does).
 * @param {{review?: string} | null} project @param {Role | null} role
 */
export function reviewQueue(project, role) {
  return { shown: TWO_STEPS.has(project?.review ?? "") && abilities(role).review, filter: { status: "translated" } };
}

/** The open and total comments over a file's threads. @param {Thread[]} threads */
export function threadCounts(threads) {
  let open = 0;
  let comments = 0;
  for (const t of threads) {
    open += t.open > 0 ? 1 : 0;
    comments += t.comments;
  }
  return { threads: threads.length, open, comments };
}

/** A segment's comments badge: "2 open" while any is open, else "3 comments"; null without comments. @param {{comments?: number, openComments?: number}} seg */
export function commentBadge(seg) {
  const n = seg.comments ?? 0;
  if (!n) return null;
  const open = seg.openComments ?? 0;
  return { text: open ? `${open} open` : `${n} comment${n === 1 ? "" : "s"}`, open: open > 0, label: `${n} comment${n === 1 ? "" : "s"}${open ? `, ${open} open` : ", all resolved"}` };
}

/**
 * Whether saving a segment's editor is the second step's review (double review, a role that reviews,
 * a `translated` unit): the same text is then an approval worth sending, an edit a correction; both
 * make the unit `reviewed`.
 * @param {string} status @param {{review?: string | null, role: Role | null}} team
 */
export function reviewsUnit(status, team) {
  return status === "translated" && TWO_STEPS.has(team.review ?? "") && abilities(team.role).review;
}

/**
 * The auto-approval report's rows (API.md "Auto-approval you can audit"): per estimate band, what
 * the rule approved and how much of it a person changed later, and the sample a person saw, with
 * its edit rate: the rule's error rate in that band (null without a sampled unit). Bands with
 * nothing in them are left out.
 * @param {{bands: {band: string, autoApproved: number, changed: number, sampled: number, sampledEdited: number, sampledPostEdit?: {chrF?: number | null}}[]}} report
 */
export function qualityRows(report) {
  return report.bands
    .filter((b) => b.autoApproved || b.sampled)
    .map((b) => ({
      band: b.band,
      autoApproved: b.autoApproved,
      changed: b.changed,
      sampled: b.sampled,
      sampledEdited: b.sampledEdited,
      editRate: b.sampled ? Math.round((100 * b.sampledEdited) / b.sampled) : null,
      chrF: b.sampledPostEdit?.chrF ?? null,
    }));
}

/**
 * The project's auto-approval as the settings form sends it: off (null), or a threshold with the
 * share of its approvals sent to a person anyway (`sample`, 0 to 1).
 * @param {string} minEstimate the form's threshold ("" off) @param {string} sample the form's share ("0" none)
 * @returns {{minEstimate: number, sample: number} | null}
 */
export function autoApproveBody(minEstimate, sample) {
  if (!minEstimate) return null;
  const share = Number(sample);
  return { minEstimate: Number(minEstimate), sample: Number.isFinite(share) && share > 0 && share <= 1 ? share : 0 };
}
