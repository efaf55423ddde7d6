// @ts-check
// The home screen's workspace: "Personal" or one of the caller's projects (GET /api/projects, asked
// only when the switcher opens, so the page loads with what it did before), a new project, and for a
// project's manager its members (PUT and DELETE …/members/{sub}), settings (PATCH) and auto-approval
// report (GET …/quality), with the server's refusals said as it words them. The choice is remembered
// in this browser; sessions started while a project is chosen are the project's.

import { actingAs } from "./actas.js";
import { api, ApiError } from "./api.js";
import { $, h, num, store } from "./dom.js";
import { abilities, autoApproveBody, chosenProject, languagesText, parseLanguages, qualityRows, ROLE_LABEL, ROLES, subProblem } from "./teams.js";

/** @typedef {import("./types.js").ProjectEntry} ProjectEntry */
/** @typedef {import("./types.js").Project} Project */
/** @typedef {import("./types.js").Member} Member */

/** Where the choice is kept: per identity acted as (local mode's tabs may be different members). */
const key = () => `workspace:${actingAs()}`;

/** The chosen project as remembered (its id, name, and the caller's role and languages), or null: Personal. @returns {ProjectEntry | null} */
export function chosen() {
  const p = store.get(key(), null);
  return p && typeof p.id === "string" ? p : null;
}

/** @type {ProjectEntry[] | null} the caller's projects, once asked */
let projects = null;

/** Back to Personal: the chosen project is gone for this caller (deleted, or they were removed from it). */
export function leaveProject() {
  store.set(key(), null);
  renderWorkspace();
}

/** The caller's projects, asked once (again with `fresh`). @param {boolean} [fresh] */
export async function myProjects(fresh = false) {
  if (!projects || fresh) projects = (await api.projects()).projects || [];
  return projects;
}

/** Forget the projects asked (another identity acts now). */
export function forgetProjects() {
  projects = null;
}

/** What the home screen does on a change of workspace: read the sessions again. @type {() => void} */
let changed = () => {};

/** @param {string} el @param {unknown} [err] */
function say(el, err) {
  const box = $(el);
  box.hidden = !err;
  // The server's own sentence when it gave one (a 403 or 422 says what is needed), as it words it.
  box.textContent = err ? (err instanceof ApiError ? err.detail || err.message : err instanceof Error ? err.message : String(err)) : "";
}

/** Show the chosen workspace: its name, the caller's role, the start form or what the role does. */
export function renderWorkspace() {
  const p = chosen();
  $("workspace-name").textContent = p ? p.name : "Personal";
  const role = $("workspace-role");
  role.hidden = !p;
  role.textContent = p ? `${ROLE_LABEL[p.role]} · ${languagesText(p.languages)}` : "";
  const can = abilities(p?.role);
  $("project-admin").hidden = !can.manage;
  $("sessions-heading").textContent = p ? `Sessions of ${p.name}` : "Your sessions";
  // Only a project's managers start its sessions; the others open the sessions of their languages.
  $("start-form").hidden = Boolean(p && !can.manage);
  $("project-note").hidden = !(p && !can.manage);
  if (p && !can.manage) {
    $("project-note-heading").textContent = `${p.name}: ${ROLE_LABEL[p.role].toLowerCase()}`;
    $("project-note-text").textContent =
      p.role === "reviewer"
        ? `You review ${languagesText(p.languages)}: open a session below; its Segments tab lists what translators did for your review.`
        : `You translate into ${languagesText(p.languages)}: open a session of your languages below and drive it. Its managers start new ones.`;
  }
  $("start-heading").textContent = p ? `New translation in ${p.name}` : "New translation";
}

/** @param {ProjectEntry | null} p */
function choose(p) {
  store.set(key(), p);
  /** @type {HTMLDetailsElement} */ ($("workspace")).open = false;
  renderWorkspace();
  if (p && abilities(p.role).manage) loadProject(p.id);
  changed();
}

/** The switcher's list: Personal and each project, with the caller's role there. */
async function fillMenu() {
  $("workspace-loading").hidden = false;
  say("project-new-error");
  let list;
  try {
    list = await myProjects(true);
  } catch (err) {
    $("workspace-loading").textContent = `Your projects could not be read: ${/** @type {Error} */ (err).message}`;
    return;
  }
  $("workspace-loading").hidden = true;
  const current = chosenProject(chosen()?.id ?? null, list);
  if (!current && chosen()) choose(null); // no longer a member: back to Personal
  const item = (/** @type {ProjectEntry | null} */ p) =>
    h(
      "li",
      {},
      h(
        "button",
        { type: "button", class: "workspace-item", "aria-current": (p?.id ?? null) === current ? "true" : null, onclick: () => choose(p) },
        h("strong", { text: p ? p.name : "Personal" }),
        h("span", { class: "hint", text: p ? ` ${ROLE_LABEL[p.role]} · ${languagesText(p.languages)}` : " your own sessions and memory" }),
      ),
    );
  $("workspace-list").replaceChildren(item(null), ...list.map(item));
}

/** @type {Project | null} the managed project's full record */
let shown = null;

/** Read the project (members and settings) and show them to its manager. @param {string} id */
async function loadProject(id) {
  try {
    const project = await api.project(id);
    if (chosen()?.id !== id) return;
    showProject(project);
  } catch (err) {
    say("members-error", err);
  }
}

/** @param {Project} project */
function showProject(project) {
  shown = project;
  /** @type {HTMLInputElement} */ ($("project-name")).value = project.name;
  /** @type {HTMLSelectElement} */ ($("project-review")).value = project.review;
  /** @type {HTMLSelectElement} */ ($("project-auto")).value = project.autoApprove ? String(project.autoApprove.minEstimate) : "";
  const sample = String(project.autoApprove?.sample ?? 0);
  const sampleSelect = /** @type {HTMLSelectElement} */ ($("project-sample"));
  if (![...sampleSelect.options].some((o) => o.value === sample)) sampleSelect.append(h("option", { value: sample, text: `${Math.round(Number(sample) * 100)}%` }));
  sampleSelect.value = sample;
  sampleSelect.disabled = !project.autoApprove;
  $("members").replaceChildren(...project.members.map(memberRow));
  const p = chosen();
  if (p && p.name !== project.name) {
    store.set(key(), { ...p, name: project.name });
    renderWorkspace();
  }
}

/**
 * The auto-approval report for the language typed (`GET …/quality?language=`): per estimate band,
 * what the rule passed and what a person changed later, and the sample a person saw with its edit rate.
 */
async function showQuality() {
  const id = shown?.id;
  const language = /** @type {HTMLInputElement} */ ($("quality-lang")).value.trim();
  if (!id) return;
  const box = $("quality");
  if (!language) {
    box.replaceChildren(h("p", { class: "form-error", text: "Give the language to report on (fr, German)." }));
    return;
  }
  try {
    const report = await api.quality(id, language);
    const rows = qualityRows(report);
    const rule = report.minEstimate == null ? "Auto-approval is off now" : `Now: estimate ≥ ${report.minEstimate}, ${Math.round(report.sample * 100)}% sampled`;
    const read = `${num.format(report.sessions)} session${report.sessions === 1 ? "" : "s"} into ${report.language}${report.complete ? "" : " (the newest)"}`;
    box.replaceChildren(
      h("p", { class: "hint", text: `${rule}. ${read}.` }),
      rows.length
        ? h(
            "table",
            { class: "score-table quality-table" },
            h("thead", {}, h("tr", {}, ["Estimate", "Auto-approved", "Changed later", "Sampled", "Edited by a person"].map((t) => h("th", { scope: "col", text: t })))),
            h(
              "tbody",
              {},
              rows.map((r) =>
                h(
                  "tr",
                  {},
                  h("th", { scope: "row", text: r.band }),
                  h("td", { text: num.format(r.autoApproved) }),
                  h("td", { text: num.format(r.changed) }),
                  h("td", { text: num.format(r.sampled) }),
                  h("td", { text: r.editRate == null ? "–" : `${num.format(r.sampledEdited)} (${r.editRate}%)` }),
                ),
              ),
            ),
          )
        : h("p", { class: "hint", text: "Nothing was auto-approved or sampled in this language yet." }),
    );
  } catch (err) {
    box.replaceChildren(h("p", { class: "form-error", text: err instanceof ApiError ? err.detail || err.message : String(err) }));
  }
}

/** A member: identity, role and languages to change, Save, Remove. @param {Member} m */
function memberRow(m) {
  const role = /** @type {HTMLSelectElement} */ (
    h("select", { "aria-label": `Role of ${m.sub}` }, ROLES.map((r) => h("option", { value: r, selected: r === m.role, text: ROLE_LABEL[r] })))
  );
  const langs = /** @type {HTMLInputElement} */ (h("input", { type: "text", "aria-label": `Languages of ${m.sub}`, autocomplete: "off" }));
  langs.value = m.languages.join(", ");
  return h(
    "li",
    { class: "member", "data-sub": m.sub },
    h("span", { class: "member-sub", title: m.sub, text: m.sub }),
    role,
    langs,
    h("button", { type: "button", class: "button button-secondary button-small", onclick: () => saveMember(m.sub, role.value, langs.value), text: "Save" }),
    h("button", { type: "button", class: "button button-quiet button-small", "aria-label": `Remove ${m.sub}`, onclick: () => removeMember(m.sub), text: "Remove" }),
  );
}

/** @param {string} sub @param {string} role @param {string} languagesTyped */
async function saveMember(sub, role, languagesTyped) {
  const id = shown?.id;
  if (!id) return;
  say("members-error");
  $("members-status").textContent = "";
  const problem = subProblem(sub);
  const langs = parseLanguages(languagesTyped);
  if (problem || "error" in langs) {
    say("members-error", problem || /** @type {{error: string}} */ (langs).error);
    return false;
  }
  try {
    const project = await api.putMember(id, sub, { role, languages: langs.languages });
    showProject(project);
    const m = project.members.find((x) => x.sub === sub);
    $("members-status").textContent = m ? `${sub}: ${ROLE_LABEL[m.role].toLowerCase()}, ${languagesText(m.languages)}.` : "";
    return true;
  } catch (err) {
    say("members-error", err);
    return false;
  }
}

/** @param {string} sub */
async function removeMember(sub) {
  const id = shown?.id;
  if (!id) return;
  say("members-error");
  try {
    showProject(await api.removeMember(id, sub));
    $("members-status").textContent = `${sub} removed.`;
  } catch (err) {
    say("members-error", err);
  }
}

/** Wire the switcher, the new-project form, the members and settings. @param {{changed: () => void}} opts */
export function setupProjects(opts) {
  changed = opts.changed;
  renderWorkspace();
  $("workspace").addEventListener("toggle", () => {
    if (/** @type {HTMLDetailsElement} */ ($("workspace")).open) fillMenu();
  });
  $("workspace").addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (e.key !== "Escape") return; // Esc closes the menu, back on its button
    /** @type {HTMLDetailsElement} */ ($("workspace")).open = false;
    $("workspace-summary").focus();
  });
  $("project-admin").addEventListener("toggle", () => {
    const p = chosen();
    if (p && /** @type {HTMLDetailsElement} */ ($("project-admin")).open) loadProject(p.id);
  });
  $("project-new").addEventListener("submit", async (/** @type {Event} */ e) => {
    e.preventDefault();
    const name = /** @type {HTMLInputElement} */ ($("project-new-name")).value.trim();
    if (!name) return say("project-new-error", "Name the project first.");
    try {
      const project = await api.createProject({ name, review: /** @type {HTMLSelectElement} */ ($("project-new-review")).value });
      /** @type {HTMLInputElement} */ ($("project-new-name")).value = "";
      await myProjects(true);
      const mine = projects?.find((p) => p.id === project.id);
      choose(mine || { id: project.id, name: project.name, role: "manager", languages: ["*"] });
      /** @type {HTMLDetailsElement} */ ($("project-admin")).open = true;
    } catch (err) {
      say("project-new-error", err);
    }
  });
  $("project-auto").addEventListener("change", () => {
    /** @type {HTMLSelectElement} */ ($("project-sample")).disabled = !(/** @type {HTMLSelectElement} */ ($("project-auto")).value);
  });
  $("quality-form").addEventListener("submit", (/** @type {Event} */ e) => {
    e.preventDefault();
    showQuality();
  });
  $("member-add").addEventListener("submit", async (/** @type {Event} */ e) => {
    e.preventDefault();
    const sub = /** @type {HTMLInputElement} */ ($("member-sub")).value;
    const ok = await saveMember(sub, /** @type {HTMLSelectElement} */ ($("member-role")).value, /** @type {HTMLInputElement} */ ($("member-langs")).value);
    if (ok) {
      /** @type {HTMLInputElement} */ ($("member-sub")).value = "";
      /** @type {HTMLInputElement} */ ($("member-langs")).value = "";
      $("member-sub").focus();
    }
  });
  $("project-settings").addEventListener("submit", async (/** @type {Event} */ e) => {
    e.preventDefault();
    const id = shown?.id;
    if (!id) return;
    say("project-settings-error");
    const auto = /** @type {HTMLSelectElement} */ ($("project-auto")).value;
    try {
      showProject(
        await api.updateProject(id, {
          name: /** @type {HTMLInputElement} */ ($("project-name")).value.trim(),
          review: /** @type {HTMLSelectElement} */ ($("project-review")).value,
          autoApprove: autoApproveBody(auto, /** @type {HTMLSelectElement} */ ($("project-sample")).value),
        }),
      );
      $("members-status").textContent = "Settings saved.";
    } catch (err) {
      say("project-settings-error", err);
    }
  });
}

/**
 * Another identity acts now (local mode's "act as"): the remembered project is checked against its
 * projects, with its role there, or the workspace goes back to Personal.
 */
export async function recheckProject() {
  forgetProjects();
  const p = chosen();
  if (!p) return;
  try {
    const mine = (await myProjects()).find((x) => x.id === p.id) || null;
    store.set(key(), mine);
  } catch {
    store.set(key(), null);
  }
  renderWorkspace();
}
