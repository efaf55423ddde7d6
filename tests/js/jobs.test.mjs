// Jobs in the web UI without the DOM (web/js/jobmodel.js, the job routes of http.js, the client's wait
// for a held session) against the fake API with jobs (fake_jobs.mjs).
import assert from "node:assert/strict";
import { test } from "node:test";

import { totalEstimate } from "../../web/js/analysis.js";
import { StepClient, delay } from "../../web/js/client.js";
import { createApi } from "../../web/js/http.js";
import {
  firstInput, firstInputSent, forgetJob, jobOf, jobSummary, languageLabel, leftText, prepareLanguages, preparationText, progressLine, rememberedJobs,
  rememberJob, secondsUntil, sessionNote, spendLine, splitLanguages, stateLine, waitText,
} from "../../web/js/jobmodel.js";
import { FakeJobsApi } from "./fake_jobs.mjs";

function setup(options) {
  const fake = new FakeJobsApi(options);
  const api = createApi({ base: "http://test/api/", fetch: fake.fetch });
  const slept = [];
  const client = new StepClient(api, { sleep: async (ms) => void slept.push(ms) });
  return { fake, api, client, slept };
}

/** localStorage's shape (dom.js `store`) over a Map. */
function memoryStore() {
  const map = new Map();
  return {
    map,
    get: (key, fallback = null) => (map.has(key) ? JSON.parse(map.get(key)) : fallback),
    set: (key, value) => (value == null ? map.delete(key) : map.set(key, JSON.stringify(value))),
  };
}

const NOW = Date.parse("2026-12-05T01:00:00Z");
const zero = { modelRequests: 0, inputTokens: 0, outputTokens: 0, usd: 0 };

test("the form's languages: every field, split at commas, each once, in order", () => {
  assert.deepEqual(splitLanguages(["German"]), ["German"]);
  assert.deepEqual(splitLanguages(["German, French;Polish", " ", "french", "Japanese "]), ["German", "French", "Polish", "Japanese"]);
  assert.deepEqual(splitLanguages(["", " , "]), []);
});

test("a language's state: waiting counts down to retryAt, failed says its error", () => {
  const lang = { state: "waiting", retryAt: "2026-12-05T01:02:05Z", error: "Rate limit reached." };
  assert.equal(secondsUntil(lang.retryAt, NOW), 125);
  assert.deepEqual(stateLine(lang, NOW), { label: "Waiting", detail: "The provider asked to wait: it goes on in 2 min 05 s.", tone: "wait" });
  assert.match(stateLine(lang, NOW + 125_000).detail, /wait is over/);
  assert.equal(secondsUntil(null, NOW), 0);
  assert.equal(secondsUntil("not a date", NOW), 0);
  assert.deepEqual(stateLine({ state: "failed", error: "The model provider refused the request (401): bad key" }, NOW), {
    label: "Failed",
    detail: "The model provider refused the request (401): bad key",
    tone: "bad",
  });
  assert.equal(stateLine({ state: "complete" }, NOW).label, "Complete");
  assert.equal(stateLine({ state: "running" }, NOW).tone, "run");
  assert.deepEqual([waitText(45), waitText(119), waitText(125), waitText(3725)], ["45 s", "119 s", "2 min 05 s", "1 h 02 min"]);
});

test("progress is segments left of the total; spending is in dollars when priced, else tokens", () => {
  assert.deepEqual(progressLine({ segments: 30, segmentsLeft: 18 }), { written: 12, total: 30, fraction: 0.4, text: "18 of 30 segments left" });
  assert.equal(progressLine({ segments: 30, segmentsLeft: 0 }).text, "All 30 segments written");
  assert.equal(progressLine({ segments: 0, segmentsLeft: 0 }).fraction, 0);
  const estimate = { modelRequests: 4, inputTokens: 12_000, outputTokens: 3_000, usd: 0.05 };
  assert.equal(spendLine({ ...zero, usd: 0.0123 }, estimate), "$0.0123 spent of about $0.0500 estimated");
  assert.equal(spendLine({ ...zero, inputTokens: 900, outputTokens: 100 }, { ...estimate, usd: null }), "1,000 of about 15,000 tokens (no price known for this model)");
  assert.equal(spendLine(zero, { ...estimate, usd: 0 }), "0 of about 15,000 tokens (a free model)");
  assert.equal(spendLine({ ...zero, usd: 12.5 }, { ...estimate, usd: 20 }), "$12.50 spent of about $20.00 estimated");
});

test("a language is named with its tag", () => {
  assert.equal(languageLabel("de"), "German (de)");
  assert.equal(languageLabel("pt-BR"), "Brazilian Portuguese (pt-BR)");
  assert.equal(languageLabel("x-unknown-thing"), "x-unknown-thing");
});

test("a job is created with the file and the languages, and read back with each language's session", async () => {
  const { fake, api } = setup();
  const created = await api.createJob({ files: [{ name: "guide.md", content: fake.document }], targetLanguages: ["de", "fr", "pl"], model: "pseudo" });
  const post = fake.requests.find((r) => r.method === "POST" && r.path === "jobs");
  assert.deepEqual(post.body, { files: [{ name: "guide.md", content: fake.document }], targetLanguages: ["de", "fr", "pl"], model: "pseudo" });
  assert.deepEqual(Object.keys(created.sessions), ["de", "fr", "pl"]);
  const job = await api.job(created.id);
  assert.deepEqual(Object.keys(job.languages), ["de", "fr", "pl"]);
  assert.equal(job.languages.fr.sessionId, created.sessions.fr);
  assert.equal(jobSummary(job), "0 of 3 languages complete");
  fake.hold(created.sessions.pl, { state: "failed", error: "Refused." });
  assert.equal(jobSummary(await api.job(created.id)), "0 of 3 languages complete · 1 failed");
  const gone = await api.job("j_nope").catch((e) => e);
  assert.equal(gone.status, 404);
});

test("the jobs this browser started are remembered, newest first, with the job of each session", () => {
  const store = memoryStore();
  rememberJob(store, { id: "j_1", name: "a.md", languages: ["German", "French"], createdAt: "2026-12-05T01:00:00Z" }, { de: "s_1", fr: "s_2" });
  rememberJob(store, { id: "j_2", name: "b.md", languages: ["Polish", "Czech"], createdAt: "2026-12-05T01:05:00Z" }, { pl: "s_3", cs: "s_4" });
  assert.deepEqual(rememberedJobs(store).map((j) => j.id), ["j_2", "j_1"]);
  assert.equal(jobOf(store, "s_2"), "j_1");
  assert.equal(jobOf(store, "s_9"), null);
  rememberJob(store, { id: "j_1", name: "a.md", languages: ["German", "French"], createdAt: "2026-12-05T01:00:00Z" }, { de: "s_1", fr: "s_2" });
  assert.deepEqual(rememberedJobs(store).map((j) => j.id), ["j_1", "j_2"], "remembered again: first, once");
  forgetJob(store, "j_1", ["s_1", "s_2"]);
  assert.deepEqual(rememberedJobs(store).map((j) => j.id), ["j_2"]);
  assert.equal(jobOf(store, "s_1"), null);
  store.set("jobs", "garbage");
  assert.deepEqual(rememberedJobs(store), [], "what cannot be read is nothing");
});

test("preparing a job drives each running or waiting language to its first review; a complete one is left alone", async () => {
  const { fake, api, client, slept } = setup();
  const created = await api.createJob({ files: [{ name: "doc.md", content: fake.document }], targetLanguages: ["de", "fr", "pl"] });
  // German is translated already; Polish waits 30 s for its provider.
  const de = fake.sessions.get(created.sessions.de);
  for (const u of de.units) de.written.set(u.start, { start: u.start, end: u.end, source: u.text, target: u.text, status: "approved" });
  fake.hold(created.sessions.pl, { state: "waiting", retryAt: new Date(NOW + 30_000).toISOString(), error: "The model provider answered 429." });
  const job = await api.job(created.id);
  assert.deepEqual(Object.values(job.languages).map((l) => l.state), ["complete", "running", "waiting"]);
  const heard = [];
  const out = await prepareLanguages(client, job, { now: NOW, onLanguage: (p) => heard.push(p) });
  assert.deepEqual(out.map((p) => [p.tag, p.kind, p.count]), [["fr", "ready", 2], ["pl", "ready", 2]]);
  assert.deepEqual(slept, [30_000], "Polish waited out its provider's time, once");
  assert.ok(heard.some((p) => p.tag === "pl" && p.kind === "waiting" && p.seconds === 30 && /429/.test(p.message)));
  const wait = heard.find((p) => p.kind === "waiting");
  assert.equal(preparationText(wait, wait.until - 30_000), "The provider is busy: trying again in 30 s…");
  assert.equal(preparationText(wait, wait.until - 18_000), "The provider is busy: trying again in 18 s…", "counted down");
  assert.equal(preparationText(wait, wait.until + 5_000), "The provider is busy: trying again in 0 s…");
  assert.equal(preparationText(out[0]), "2 proposals ready for review");
  assert.ok(!fake.requests.some((r) => r.path === `sessions/${created.sessions.de}`), "the complete language is not read");
  const after = await api.job(created.id);
  assert.equal(after.languages.pl.state, "running", "the step that committed ended the wait");
  assert.equal(fake.sessions.get(created.sessions.fr).pending.length, 2);
  // Prepared again (a reload of the job view): the proposals are there, no model step runs.
  const steps = fake.steps;
  const again = await prepareLanguages(client, after, { now: NOW });
  assert.deepEqual(again.map((p) => p.kind), ["ready", "ready"]);
  assert.equal(fake.steps, steps);
});

test("preparing stops when the view is left", async () => {
  const { fake, api } = setup();
  const created = await api.createJob({ files: [{ name: "doc.md", content: fake.document }], targetLanguages: ["de"] });
  const controller = new AbortController();
  const client = new StepClient(api, { sleep: delay });
  fake.hold(created.sessions.de, { state: "waiting", retryAt: new Date(NOW + 60_000).toISOString() });
  const job = await api.job(created.id);
  const done = prepareLanguages(client, job, { now: NOW, signal: controller.signal });
  controller.abort();
  const [p] = await done;
  assert.equal(p.kind, "stopped");
  assert.equal(fake.steps, 0, "no step ran");
});

test("a waiting session is waited for, then goes on by itself; Stop during the wait changes nothing", async () => {
  const { fake, api, client, slept } = setup();
  const sid = fake.seed();
  fake.sessions.get(sid).started = true;
  fake.hold(sid, { state: "waiting", retryAt: new Date(NOW + 90_000).toISOString(), error: "Quota." });
  const statuses = [];
  const out = await client.waitThenResume(sid, 90, { message: "Quota.", onStatus: (s) => statuses.push(s) });
  assert.equal(out.kind, "review");
  assert.deepEqual(slept, [90_000]);
  assert.deepEqual(statuses[0], { kind: "waiting", seconds: 90, message: "Quota.", body: { sessionId: sid } });
  assert.equal((await api.session(sid)).state, "running");

  const other = fake.seed();
  fake.sessions.get(other).started = true;
  const controller = new AbortController();
  const waiting = new StepClient(api, { sleep: delay }); // the real timer, ended by Stop
  const p = waiting.waitThenResume(other, 30, { signal: controller.signal });
  controller.abort();
  const stopped = await p;
  assert.equal(stopped.kind, "stopped");
  assert.deepEqual(stopped.retry.body, { sessionId: other }, "Continue goes on at once");
  const steps = fake.steps;
  assert.equal((await waiting.drive(stopped.retry.body, { key: stopped.retry.key })).kind, "review");
  assert.equal(fake.steps, steps + 1);
});

test("the review screen's note: waiting, failed with what helps, segments left; nothing when running or complete", () => {
  const waiting = sessionNote({ state: "waiting", retryAt: new Date(NOW + 42_000).toISOString(), error: "Rate limit." }, { now: NOW });
  assert.deepEqual(waiting, { kind: "waiting", seconds: 42, text: "Rate limit." });
  const failed = sessionNote({ state: "failed", error: "The model provider refused the request (404): no such model" }, { now: NOW, models: 2 });
  assert.equal(failed.kind, "failed");
  assert.match(failed.text, /refused .* no such model/);
  assert.match(failed.hint, /switch the model/);
  assert.match(failed.hint, /Nothing more is spent until you act/);
  assert.match(sessionNote({ state: "failed", error: "x" }, { now: NOW, models: 1 }).hint, /key, quota or the session's budget/);
  const stopped = sessionNote({ state: "stopped", error: "12 proposals in a row were refused." }, { now: NOW, models: 1 });
  assert.equal(stopped.kind, "stopped");
  assert.equal(stopped.text, "12 proposals in a row were refused.");
  assert.match(stopped.hint, /send the agent an instruction/);
  assert.equal(sessionNote({ state: "stopped" }, { now: NOW }).text, "The agent's proposals kept being refused.", "a stop without its error still says why");
  assert.deepEqual(stateLine({ state: "stopped", error: "Refused again and again." }, NOW), { label: "Stopped", detail: "Refused again and again.", tone: "bad" });
  assert.deepEqual(sessionNote({ state: "running", segmentsLeft: 3, actor: "user", pendingCopilotRequests: [] }, { now: NOW }), {
    kind: "left",
    text: "3 segments are not translated yet.",
  });
  assert.equal(sessionNote({ state: "running", segmentsLeft: 3, actor: "agent", pendingCopilotRequests: [] }, { now: NOW }), null, "the agent goes on");
  assert.equal(sessionNote({ state: "running", segmentsLeft: 3, actor: "user", pendingCopilotRequests: [{}] }, { now: NOW }), null, "under review");
  assert.equal(sessionNote({ state: "complete", segmentsLeft: 0 }, { now: NOW }), null);
  assert.equal(sessionNote({}, { now: NOW }), null, "an older server says nothing");
  assert.equal(leftText(1), "1 segment is not translated yet.");
});

test("a session's model is switched with PATCH; an unknown model is refused and changes nothing", async () => {
  const { fake, api } = setup({ models: [{ name: "openai:gpt-4.1", default: true, price: null }, { name: "anthropic:claude-sonnet-4-5", default: false, price: null }] });
  const sid = fake.seed();
  fake.hold(sid, { state: "failed", error: "Refused." });
  assert.equal((await api.models()).models.length, 2);
  const view = await api.updateSession(sid, { model: "anthropic:claude-sonnet-4-5" });
  assert.equal(view.model, "anthropic:claude-sonnet-4-5");
  assert.deepEqual(fake.requests.filter((r) => r.method === "PATCH").map((r) => r.body), [{ model: "anthropic:claude-sonnet-4-5" }]);
  const refused = await api.updateSession(sid, { model: "nope" }).catch((e) => e);
  assert.equal(refused.status, 422);
  assert.equal((await api.session(sid)).model, "anthropic:claude-sonnet-4-5");
});

test("the estimate of several languages is added up; one without a price leaves the total unpriced", () => {
  const e = (usd) => ({ modelRequests: 2, inputTokens: 1000, outputTokens: 200, usd, model: "m" });
  assert.deepEqual(totalEstimate([e(0.01), e(0.02), e(0.0301)]), { modelRequests: 6, inputTokens: 3000, outputTokens: 600, usd: 0.0601, model: "m" });
  assert.equal(totalEstimate([e(0.01), e(null)]).usd, null);
});

test("a job's instructions are each language's first input, given once", async () => {
  const { fake, api, client } = setup();
  const store = memoryStore();
  const created = await api.createJob({ files: [{ name: "doc.md", content: fake.document }], targetLanguages: ["de", "fr"] });
  rememberJob(store, { id: created.id, name: "doc.md", languages: ["German", "French"], createdAt: "2026-12-05T01:00:00Z" }, created.sessions, {
    instructions: "Formal tone.",
  });
  assert.equal(firstInput(store, created.sessions.de), "Instructions: Formal tone.");
  const job = await api.job(created.id);
  const out = await prepareLanguages(client, job, { input: (sid) => firstInput(store, sid), onSent: (sid) => firstInputSent(store, sid) });
  assert.deepEqual(out.map((p) => p.kind), ["ready", "ready"]);
  const inputs = fake.requests.filter((r) => r.path === "next").map((r) => [r.body.sessionId, r.body.userInput]);
  assert.deepEqual(inputs, [
    [created.sessions.de, "Instructions: Formal tone."],
    [created.sessions.fr, "Instructions: Formal tone."],
  ]);
  assert.equal(firstInput(store, created.sessions.de), null, "given once");
  await prepareLanguages(client, await api.job(created.id), { input: (sid) => firstInput(store, sid) });
  assert.equal(fake.requests.filter((r) => r.path === "next").length, 2, "prepared again: nothing sent");
  rememberJob(store, { id: "j_9", name: "x.md", languages: ["German"], createdAt: "2026-12-05T01:00:00Z" }, { de: "s_9" });
  assert.equal(firstInput(store, "s_9"), null, "no instructions, no first input");
});

test("a language whose proposals keep being refused is prepared up to the client's bound, then said to be paused", async () => {
  const { fake, api, client } = setup();
  const created = await api.createJob({ files: [{ name: "doc.md", content: fake.document }], targetLanguages: ["de"] });
  fake.stuck = true;
  const [out] = await prepareLanguages(client, await api.job(created.id), { now: NOW });
  assert.equal(out.kind, "error");
  assert.match(preparationText(out), /not getting anywhere/);
  // The first step gives the progress the next ones are compared with: the bound plus that one.
  assert.equal(fake.steps, client.maxIdleSteps + 1, "no step more than the bound");
});
