// Projects and teams without the DOM (web/js/teams.js), and the API's team routes (web/js/http.js)
// against a recording fetch: a holder's 409, a member's 403 in the server's words, the act-as header.
import assert from "node:assert/strict";
import { test } from "node:test";

import { StepClient } from "../../web/js/client.js";
import { ApiError, createApi } from "../../web/js/http.js";
import {
  abilities,
  autoApproveBody,
  qualityRows,
  chosenProject,
  commentBadge,
  commentProblem,
  covers,
  heldText,
  languagesText,
  parseLanguages,
  projectSessionLine,
  reviewQueue,
  reviewsUnit,
  roleIn,
  subProblem,
  threadCounts,
} from "../../web/js/teams.js";

const json = (status, body) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

/** A fetch that answers `answer(method, path, body)` and records every request. */
function recording(answer) {
  const sent = [];
  const fetch = async (url, init) => {
    const path = new URL(url).pathname.replace(/^\/api\//, "") + new URL(url).search;
    const body = init.body ? JSON.parse(init.body) : undefined;
    sent.push({ method: init.method, path, body, headers: init.headers });
    return answer(init.method, path, body);
  };
  return { sent, fetch };
}

test("roles: a manager manages, reviews and drives; a reviewer reviews; a translator drives", () => {
  assert.deepEqual(abilities("manager"), { manage: true, review: true, drive: true });
  assert.deepEqual(abilities("reviewer"), { manage: false, review: true, drive: true });
  assert.deepEqual(abilities("translator"), { manage: false, review: false, drive: true });
  assert.deepEqual(abilities(null), { manage: false, review: false, drive: false });
});

test("languages: * covers all, a tag exactly its language, no language only *", () => {
  assert.ok(covers(["*"], "de"));
  assert.ok(covers(["fr", "de"], "FR"));
  assert.ok(!covers(["fr"], "fr-CA"), "fr does not cover fr-CA");
  assert.ok(!covers(["fr"], null));
  assert.ok(covers(["*"], null));
  assert.equal(languagesText(["*"]), "all languages");
  assert.equal(languagesText(["fr", "de"]), "fr, de");
});

test("a member's languages as typed: a list, * alone, nothing refused before sending", () => {
  assert.deepEqual(parseLanguages("fr, de;fr"), { languages: ["fr", "de"] });
  assert.deepEqual(parseLanguages(" French "), { languages: ["French"] });
  assert.deepEqual(parseLanguages("*"), { languages: ["*"] });
  assert.deepEqual(parseLanguages("All"), { languages: ["*"] });
  assert.match(/** @type {any} */ (parseLanguages(" , ")).error, /languages/);
  assert.match(/** @type {any} */ (parseLanguages("fr, *")).error, /alone/);
});

test("an identity and a comment are checked as the server checks them", () => {
  assert.equal(subProblem("bob"), null);
  assert.match(subProblem("  ") ?? "", /identity/);
  assert.match(subProblem("x".repeat(257)) ?? "", /256/);
  assert.match(subProblem("project:abc") ?? "", /project:/);
  assert.equal(commentProblem("Is «widget» a term?\nSee line 2.\ttab"), null);
  assert.match(commentProblem(" \n ") ?? "", /Write/);
  assert.match(commentProblem("a".repeat(2001)) ?? "", /2,000.*2,001/);
  assert.match(commentProblem("bell\u0007") ?? "", /control/);
});

test("who holds a session: said while the hold lasts, not for oneself, not after it ends", () => {
  const now = Date.parse("2026-12-06T22:00:00Z");
  const view = { heldBy: "tina", until: "2026-12-06T22:05:00Z" };
  assert.equal(heldText(view, { now }), "Held by tina until 22:05 UTC");
  assert.equal(heldText(view, { now, time: () => "10:05 PM" }), "Held by tina until 10:05 PM");
  assert.equal(heldText(view, { now, me: "tina" }), null, "one's own hold is not a warning");
  assert.equal(heldText(view, { now: now + 6 * 60_000 }), null, "an ended hold holds nothing");
  assert.equal(heldText({ heldBy: null, until: null }, { now }), null);
  assert.equal(heldText({ heldBy: "tina" }, { now }), "Held by tina");
});

test("a project's session in its list: language, where it stands, who holds it", () => {
  const now = Date.parse("2026-12-06T22:00:00Z");
  const name = (/** @type {string} */ t) => ({ fr: "French" })[t] ?? t;
  const base = { id: "s_1", targetLanguage: "fr", state: "running", progress: { translatedChars: 25, totalChars: 100, complete: false } };
  assert.deepEqual(projectSessionLine(base, { now, name }), { language: "French", where: "25% translated", held: null });
  assert.equal(projectSessionLine({ ...base, state: "waiting" }, { now, name }).where, "waiting");
  assert.equal(projectSessionLine({ ...base, progress: { translatedChars: 100, totalChars: 100, complete: true } }, { now }).where, "complete");
  assert.equal(projectSessionLine({ ...base, heldBy: "tina", until: "2026-12-06T22:03:00Z" }, { now }).held, "Held by tina until 22:03 UTC");
  assert.equal(projectSessionLine({ id: "s_2", targetLanguage: null }, { now }).language, "no language yet");
});

test("the switcher keeps a project while the caller is a member; a role comes from the caller's projects", () => {
  const projects = [{ id: "p_1", name: "Docs", role: /** @type {const} */ ("reviewer"), languages: ["fr"] }];
  assert.equal(chosenProject("p_1", projects), "p_1");
  assert.equal(chosenProject("p_gone", projects), null);
  assert.equal(chosenProject(null, projects), null);
  assert.deepEqual(roleIn("p_1", projects), { role: "reviewer", languages: ["fr"], name: "Docs" });
  assert.deepEqual(roleIn(null, projects), { role: null, languages: ["*"], name: null });
  assert.deepEqual(roleIn("p_9", projects), { role: null, languages: [], name: null });
});

test("the reviewer's queue: double review and a role that reviews", () => {
  assert.equal(reviewQueue({ review: "double" }, "reviewer").shown, true);
  assert.equal(reviewQueue({ review: "double" }, "manager").shown, true);
  assert.equal(reviewQueue({ review: "double" }, "translator").shown, false);
  assert.equal(reviewQueue({ review: "single" }, "reviewer").shown, false);
  assert.equal(reviewQueue({ review: "pretranslate" }, "manager").shown, true, "what the model pre-translated");
  assert.equal(reviewQueue({ review: "pretranslate" }, "translator").shown, false);
  assert.deepEqual(reviewQueue(null, "reviewer").filter, { status: "translated" });
});

test("comment counts and badges", () => {
  const thread = (open, comments) => ({ segmentId: "s1", open, comments, thread: [] });
  assert.deepEqual(threadCounts([thread(1, 2), thread(0, 3)]), { threads: 2, open: 1, comments: 5 });
  assert.equal(commentBadge({ comments: 0 }), null);
  assert.deepEqual(commentBadge({ comments: 3, openComments: 2 }), { text: "2 open", open: true, label: "3 comments, 2 open" });
  assert.deepEqual(commentBadge({ comments: 1, openComments: 0 }), { text: "1 comment", open: false, label: "1 comment, all resolved" });
});

test("the team routes: paths, bodies, a project's memory and the act-as header", async () => {
  const { sent, fetch } = recording((method, path) => json(method === "POST" && path.endsWith("comments") ? 201 : 200, {}));
  let actAs = "bob";
  const api = createApi({ base: "http://t/api/", fetch, headers: () => (actAs ? { "X-Act-As": actAs } : {}) });
  await api.projects();
  await api.createProject({ name: "Docs", review: "double" });
  await api.putMember("p 1", "alice@example.com", { role: "translator", languages: ["fr"] });
  await api.removeMember("p1", "bob");
  await api.updateProject("p1", { review: "single" });
  await api.projectSessions("p1", "c2");
  await api.createSession({ targetLanguage: "fr", project: "p1" });
  await api.postComment("s_1", "f_1", "s3", "Why?");
  await api.resolveComment("s_1", "f_1", "s3", "c_1", true);
  await api.threads("s_1", true);
  actAs = "";
  await api.approveShown("s_1", "f_1", { status: "translated" }, "review");
  await api.releaseClaim("s_1");
  await api.memory("p1");
  await api.addGlossary({ source: "widget", target: "gadget" }, "p1");
  await api.deleteMemory("e 1", "p1");
  await api.memory(null);
  assert.deepEqual(
    sent.map((r) => `${r.method} ${r.path}`),
    [
      "GET projects",
      "POST projects",
      "PUT projects/p%201/members/alice%40example.com",
      "DELETE projects/p1/members/bob",
      "PATCH projects/p1",
      "GET projects/p1/sessions?limit=20&cursor=c2",
      "POST sessions",
      "POST sessions/s_1/files/f_1/segments/s3/comments",
      "PATCH sessions/s_1/files/f_1/segments/s3/comments/c_1",
      "GET sessions/s_1/comments?open=true",
      "POST sessions/s_1/files/f_1/approve",
      "DELETE sessions/s_1/claim",
      "GET projects/p1/memory",
      "POST projects/p1/memory/glossary",
      "DELETE projects/p1/memory/e%201",
      "GET memory",
    ],
  );
  assert.equal(api.memoryExportPath("tmx", "p1"), "projects/p1/memory/export?format=tmx");
  assert.equal(api.memoryExportPath("csv"), "memory/export?format=csv");
  assert.equal(sent[0].headers["X-Act-As"], "bob");
  assert.equal(sent[10].headers["X-Act-As"], undefined, "no header once the field is cleared");
  assert.deepEqual(sent[6].body, { targetLanguage: "fr", project: "p1" });
  assert.deepEqual(sent[8].body, { resolved: true });
  assert.deepEqual(sent[10].body, { filter: { status: "translated" }, step: "review" });
});

test("a member's 403 and 422 say the server's words", async () => {
  const words = "Changing the project's members needs its manager; you are a translator.";
  const { fetch } = recording((method) => (method === "PUT" ? json(403, { error: words }) : json(422, { error: "Keep a manager: make another member a manager first." })));
  const api = createApi({ base: "http://t/api/", fetch });
  const refused = await api.putMember("p1", "x", { role: "manager", languages: ["*"] }).catch((e) => e);
  assert.ok(refused instanceof ApiError);
  assert.equal(refused.status, 403);
  assert.equal(refused.message, words);
  const last = await api.removeMember("p1", "me").catch((e) => e);
  assert.equal(last.status, 422);
  assert.match(last.message, /Keep a manager: make another member a manager first\.$/);
});

test("a step another member holds: thrown at once with who and until, never retried; takeOver is sent as asked", async () => {
  const held = { error: "tina drives this session until 22:05 UTC.", heldBy: "tina", until: "2026-12-06T22:05:00Z" };
  const { sent, fetch } = recording((method, path, body) =>
    body?.takeOver
      ? json(200, { sessionId: "s_1", agentResponse: { actor: "user", messages: [], copilotRequests: [] } })
      : json(409, held),
  );
  const api = createApi({ base: "http://t/api/", fetch });
  const client = new StepClient(api, { sleep: async () => {} });
  const err = await client.drive({ sessionId: "s_1" }).catch((e) => e);
  assert.ok(err instanceof ApiError);
  assert.equal(err.heldBy, "tina");
  assert.equal(err.until, "2026-12-06T22:05:00Z");
  assert.equal(err.message, held.error);
  assert.equal(sent.length, 1, "no resync and no second try: nothing changes until the hold ends");
  assert.deepEqual(err.retry?.body, { sessionId: "s_1" });
  const out = await client.drive({ ...err.retry.body, takeOver: true });
  assert.equal(out.kind, "idle");
  assert.deepEqual(sent[1].body, { sessionId: "s_1", takeOver: true });
});

test("saving a translated unit is the second step's review for a reviewer in a double-review session only", () => {
  assert.equal(reviewsUnit("translated", { review: "double", role: "reviewer" }), true);
  assert.equal(reviewsUnit("translated", { review: "double", role: "manager" }), true);
  assert.equal(reviewsUnit("translated", { review: "double", role: "translator" }), false, "a translator's revision stays translated");
  assert.equal(reviewsUnit("reviewed", { review: "double", role: "reviewer" }), false);
  assert.equal(reviewsUnit("translated", { review: "single", role: "reviewer" }), false);
  assert.equal(reviewsUnit("translated", { review: null, role: null }), false);
  assert.equal(reviewsUnit("translated", { review: "pretranslate", role: "manager" }), true);
});

test("the auto-approval report: bands with something in them, the sample's edit rate", () => {
  const none = { units: 0, unchanged: 0, edited: 0, chrF: null, ter: null };
  const report = {
    bands: [
      { band: "90-100", autoApproved: 40, changed: 2, postEdit: none, sampled: 8, sampledEdited: 1, sampledPostEdit: { ...none, chrF: 97.5 } },
      { band: "80-89", autoApproved: 0, changed: 0, postEdit: none, sampled: 0, sampledEdited: 0, sampledPostEdit: none },
      { band: "70-79", autoApproved: 3, changed: 1, postEdit: none, sampled: 0, sampledEdited: 0, sampledPostEdit: none },
    ],
  };
  assert.deepEqual(qualityRows(report), [
    { band: "90-100", autoApproved: 40, changed: 2, sampled: 8, sampledEdited: 1, editRate: 13, chrF: 97.5 },
    { band: "70-79", autoApproved: 3, changed: 1, sampled: 0, sampledEdited: 0, editRate: null, chrF: null },
  ]);
});

test("the project's auto-approval from the settings form: off, or a threshold with its sample", () => {
  assert.equal(autoApproveBody("", "0.1"), null);
  assert.deepEqual(autoApproveBody("90", "0.1"), { minEstimate: 90, sample: 0.1 });
  assert.deepEqual(autoApproveBody("85", "0"), { minEstimate: 85, sample: 0 });
  assert.deepEqual(autoApproveBody("85", "2"), { minEstimate: 85, sample: 0 }, "a share is at most 1");
});
