// The DOM-free client (web/js/client.js, http.js, segmodel.js) against the fake API in fake_api.mjs.
import assert from "node:assert/strict";
import { test } from "node:test";

import { StepClient, queuedText, restoredOutcome } from "../../web/js/client.js";
import { ApiError, createApi } from "../../web/js/http.js";
import { filterSegments, searchTerms, loadSegments, reviseSegment, segmentProgress, segmentsFromUnits, withPending } from "../../web/js/segmodel.js";
import { FakeApi } from "./fake_api.mjs";

function setup(options) {
  const fake = new FakeApi(options);
  const api = createApi({ base: "http://test/api/", fetch: fake.fetch });
  const slept = [];
  const client = new StepClient(api, { sleep: async (ms) => void slept.push(ms) });
  return { fake, api, client, slept, sid: fake.seed() };
}

const approveAll = (sid, requests) => ({
  sessionId: sid,
  copilotResponses: requests.map((r) => ({ tool: r.tool, status: "approve" })),
});

test("the loop runs to the end, one Idempotency-Key per request", async () => {
  const { fake, client, sid } = setup();
  const steps = [];
  let out = await client.drive({ sessionId: sid, userInput: "Translate doc.md into French." }, { onStep: (r) => steps.push(r) });
  let batches = 0;
  while (out.kind === "review") {
    batches++;
    out = await client.drive(approveAll(sid, out.requests), { onStep: (r) => steps.push(r) });
  }
  assert.equal(out.kind, "idle");
  assert.equal(batches, 2, "four paragraphs in batches of two");
  assert.equal(fake.progress(fake.sessions.get(sid)).complete, true);
  const keys = fake.requests.filter((r) => r.path === "next").map((r) => r.key);
  assert.equal(keys.length, 3);
  assert.equal(new Set(keys).size, 3, "every request has its own key");
  assert.ok(keys.every((k) => typeof k === "string" && k.length >= 16));
  assert.equal(steps.length, fake.steps);
});

test("a lost answer is replayed with the same key: the step runs once, its answer is applied once", async () => {
  const { fake, client, sid } = setup();
  fake.faults.push({ route: "next", kind: "lose" });
  const applied = [];
  const out = await client.drive({ sessionId: sid, userInput: "Go." }, { onStep: (r) => applied.push(r) });
  assert.equal(out.kind, "review");
  assert.equal(fake.steps, 1, "no second step");
  const sent = fake.requests.filter((r) => r.path === "next");
  assert.equal(sent.length, 2);
  assert.equal(sent[0].key, sent[1].key, "the replay reuses the key");
  assert.equal(applied.length, 1);
  assert.equal(out.requests.length, 2);
});

test("a lost answer that stays lost is thrown with what Retry must send (the same key)", async () => {
  const { fake, client, sid } = setup();
  fake.faults.push({ route: "next", kind: "lose" }, { route: "next", kind: "down" }, { route: "next", kind: "down" });
  const err = await client.drive({ sessionId: sid, userInput: "Go." }).catch((e) => e);
  assert.ok(err instanceof ApiError && err.status === 0);
  const keys = fake.requests.filter((r) => r.path === "next").map((r) => r.key);
  assert.deepEqual(err.retry.key, keys[0]);
  const out = await client.drive(err.retry.body, { key: err.retry.key });
  assert.equal(out.kind, "review");
  assert.equal(fake.steps, 1, "the Retry replayed the one step");
});

test("409 on verdicts: the client re-reads the session and sends the verdicts that still apply", async () => {
  const { fake, client, sid } = setup();
  const first = await client.drive({ sessionId: sid, userInput: "Go." });
  fake.faults.push({ route: "next", kind: "409" });
  const resynced = [];
  const out = await client.drive(approveAll(sid, first.requests), { onResync: (v) => resynced.push(v) });
  assert.equal(resynced.length, 1);
  assert.equal(resynced[0].pendingCopilotRequests.length, 2);
  assert.equal(out.kind, "review");
  assert.notDeepEqual(out.requests.map((r) => r.tool.callId), first.requests.map((r) => r.tool.callId));
  const gets = fake.requests.filter((r) => r.method === "GET" && r.path === `sessions/${sid}`);
  assert.equal(gets.length, 1, "resync from GET /api/sessions/{id}");
  const keys = fake.requests.filter((r) => r.path === "next").map((r) => r.key);
  assert.notEqual(keys[1], keys[2], "the resend is a new request");
});

test("409 because another tab sent the verdicts: the server's new batch is shown", async () => {
  const { fake, client, sid } = setup();
  const first = await client.drive({ sessionId: sid, userInput: "Go." });
  fake.faults.push({ route: "next", kind: "409", before: (s) => fake.step(s, approveAll(sid, first.requests)) });
  const out = await client.drive(approveAll(sid, first.requests));
  assert.equal(out.kind, "review");
  assert.deepEqual(out.requests, fake.sessions.get(sid).pending);
  assert.ok(!out.requests.some((r) => first.requests.some((f) => f.tool.callId === r.tool.callId)));
});

test("503 and 504 are retried after Retry-After, with a new key; failures without one are given up after three attempts", async () => {
  const { fake, client, slept, sid } = setup();
  fake.faults.push({ route: "next", kind: "503", retryAfter: 3 }, { route: "next", kind: "504" });
  const statuses = [];
  const out = await client.drive({ sessionId: sid, userInput: "Go." }, { onStatus: (s) => statuses.push(s) });
  assert.equal(out.kind, "review");
  assert.deepEqual(slept, [3000, 2000], "Retry-After, else the default wait");
  const waiting = statuses.filter((s) => s.kind === "waiting");
  assert.equal(waiting[0].seconds, 3);
  assert.match(waiting[0].message, /busy or unavailable/);
  const keys = fake.requests.filter((r) => r.path === "next").map((r) => r.key);
  assert.equal(new Set(keys).size, 3);

  fake.faults.push(...[1, 2, 3].map(() => ({ route: "next", kind: "504" })));
  const err = await client.drive({ sessionId: sid, copilotResponses: [] }).catch((e) => e);
  assert.ok(err instanceof ApiError && err.status === 504);
  assert.ok(err.retry && err.retry.body.copilotResponses);
});

test("a provider's throttle (503 with Retry-After) is waited out whole, as often as it lasts, up to an hour a wait", async () => {
  const { fake, client, slept, sid } = setup();
  fake.faults.push(...[60, 600, 5, 7200, 1].map((retryAfter) => ({ route: "next", kind: "503", retryAfter })));
  const statuses = [];
  const out = await client.drive({ sessionId: sid, userInput: "Go." }, { onStatus: (s) => statuses.push(s) });
  assert.equal(out.kind, "review", "five throttles in a row, and the job goes on");
  assert.deepEqual(slept, [60_000, 600_000, 5_000, 3_600_000, 1_000]);
  assert.deepEqual(statuses.filter((s) => s.kind === "waiting").map((s) => s.seconds), [60, 600, 5, 3600, 1]);
});

test("Stop returns what Continue sends; Continue re-reads the session and replays with the same key", async () => {
  const { fake, api, sid } = setup();
  const controller = new AbortController();
  const client = new StepClient(api, { sleep: async () => {} });
  controller.abort();
  const stopped = await client.drive({ sessionId: sid, userInput: "Go." }, { signal: controller.signal });
  assert.equal(stopped.kind, "stopped");
  assert.equal(fake.steps, 0);
  const out = await client.resume(sid, stopped.retry);
  assert.equal(out.kind, "review");
  const next = fake.requests.filter((r) => r.path === "next");
  assert.equal(next.at(-1).key, stopped.retry.key);
  assert.ok(fake.requests.some((r) => r.method === "GET" && r.path === `sessions/${sid}`));
});

test("input while reviews are pending is queued and listed by the session view", async () => {
  const { client, api, sid } = setup();
  const first = await client.drive({ sessionId: sid, userInput: "Go." });
  const out = await client.drive({ sessionId: sid, userInput: "Use the formal register." });
  assert.equal(out.kind, "queued");
  assert.deepEqual(out.requests, first.requests, "the pending reviews are unchanged");
  const view = await api.session(sid);
  assert.deepEqual(view.queuedInputs.map(queuedText), ["Use the formal register."]);
  assert.equal(restoredOutcome(view).kind, "review");
  await client.drive(approveAll(sid, first.requests));
  assert.deepEqual((await api.session(sid)).queuedInputs, [], "given to the model with the next request");
});

test("segments: every page is loaded, filtered, searched and counted", async () => {
  const { fake, client, api, sid } = setup();
  const first = await client.drive({ sessionId: sid, userInput: "Go." });
  await client.drive({ sessionId: sid, copilotResponses: [
    { tool: first.requests[0].tool, status: "refined", translated_string: "# Titre" },
    { tool: first.requests[1].tool, status: "approve" },
  ] });
  const { segments, server } = await loadSegments(api, sid, "f_1", { limit: 1 });
  assert.equal(server, true);
  assert.equal(segments.length, 4);
  assert.equal(fake.requests.filter((r) => r.path.includes("/segments")).length, 4, "one page per segment");
  assert.deepEqual(segments.map((s) => s.status), ["refined", "approved", "pending", "pending"]);
  assert.equal(filterSegments(segments, { status: "pending" }).length, 2);
  assert.equal(filterSegments(segments, { status: "written" }).length, 2);
  assert.deepEqual(filterSegments(segments, { q: "titre" }).map((s) => s.start), [0], "search in the target");
  assert.deepEqual(filterSegments(segments, { q: "SECOND" }).map((s) => s.source), ["Second one."]);
  const p = segmentProgress(segments);
  assert.equal(p.units, 2);
  assert.equal(p.chars, "# Title".length + "First paragraph.".length);
  const page = await api.segments(sid, "f_1", { status: "pending", q: "end" });
  assert.deepEqual(page.segments.map((s) => s.source), ["The end."], "the query reaches the server");
});

test("the search box's key:prefix filters by a string's key, the rest searches the text", () => {
  assert.deepEqual(searchTerms("key:menu. Open"), { q: "Open", key: "menu." });
  assert.deepEqual(searchTerms("save key:button_"), { q: "save", key: "button_" });
  assert.deepEqual(searchTerms("monkey:business"), { q: "monkey:business", key: "" }, "only a word of its own");
  const segs = [
    { start: 0, source: "Save", target: null, status: "translated", context: { key: "button_save" } },
    { start: 9, source: "Open", target: null, status: "translated", context: { key: "menu.open" } },
    { start: 19, source: "Prose.", target: null, status: "translated" },
  ];
  assert.deepEqual(filterSegments(segs, { q: "key:button_" }).map((s) => s.start), [0]);
  assert.deepEqual(filterSegments(segs, { q: "key:menu. open" }).map((s) => s.start), [9]);
  assert.deepEqual(filterSegments(segs, { q: "key:" }).map((s) => s.start), [0, 9, 19], "an empty prefix is no filter");
});

test("without a segments route (404) the list is built from the units and the source", async () => {
  const { fake, client, api, sid } = setup({ document: "👋 Hello.\n\nSecond.\n\n  Third.\n" });
  fake.supportsSegments = false;
  const first = await client.drive({ sessionId: sid, userInput: "Go." });
  await client.drive({ sessionId: sid, copilotResponses: [
    { tool: first.requests[0].tool, status: "approve" },
    { tool: first.requests[1].tool, status: "reject", reason: "No." },
  ] });
  const { segments, server } = await loadSegments(api, sid, "f_1");
  assert.equal(server, false);
  assert.deepEqual(
    segments.map((s) => [s.start, s.end, s.status, s.source]),
    [[0, 8, "approved", "👋 Hello."], [10, 27, "untranslated", "Second.\n\n  Third."]],
  );
  const pending = fake.sessions.get(sid).pending;
  const marked = withPending(segments, pending);
  assert.deepEqual(marked.map((s) => [s.start, s.end, s.status]), [[0, 8, "approved"], [10, 17, "pending"], [21, 27, "pending"]]);
  const r = await reviseSegment(api, sid, "f_1", 0, "Salut.");
  assert.equal(!r.ok && r.why, "missing", "no route: the UI has already said revising is not available");
});

test("a request without `end` is marked by its source's length", () => {
  const segs = segmentsFromUnits("😀 a.\n\nb c.\n", []);
  const marked = withPending(segs, [{ tool: { name: "Translate", callId: "c" }, src_string: "😀 a.", translate_string: "x", start: 0 }]);
  assert.deepEqual(marked.map((s) => [s.start, s.end, s.status]), [[0, 4, "pending"], [6, 10, "untranslated"]]);
});

test("a proposal of joined segments takes them all, and the rest of a segment it cuts stays untranslated", () => {
  const seg = (id, start, end, source) => ({ id, start, end, source, target: null, status: "untranslated", origin: null, updatedAt: null });
  const segments = [seg("s1", 0, 4, "One."), seg("s2", 5, 9, "Two."), seg("s3", 10, 20, "Three four")];
  const request = { tool: { name: "Translate", callId: "c" }, src_string: "One. Two. Three", translate_string: "x", start: 0, end: 15 };
  const marked = withPending(segments, [request]);
  assert.deepEqual(marked.map((s) => [s.id, s.start, s.end, s.status, s.source]), [
    ["s1", 0, 15, "pending", "One. Two. Three"],
    ["s3", 16, 20, "untranslated", "four"],
  ]);
});

test("segmentsFromUnits counts code points, as the server does", () => {
  const source = "😀 a.\n\nb c.\n";
  const segs = segmentsFromUnits(source, [{ start: 0, end: 4, text: "😀 A.", status: "approve" }]);
  assert.deepEqual(segs.map((s) => [s.start, s.end, s.source]), [[0, 4, "😀 a."], [6, 10, "b c."]]);
});

test("revising a written segment: revised; pending reviews answer 409 (reload)", async () => {
  const { client, api, sid } = setup();
  const first = await client.drive({ sessionId: sid, userInput: "Go." });
  const second = await client.drive(approveAll(sid, first.requests));
  const conflict = await reviseSegment(api, sid, "f_1", 0, "# Titre", "heading");
  assert.equal(conflict.ok, false);
  assert.equal(!conflict.ok && conflict.why, "conflict");
  await client.drive(approveAll(sid, second.requests));
  const done = await reviseSegment(api, sid, "f_1", 0, "# Titre", "heading");
  assert.ok(done.ok);
  assert.equal(done.ok && done.segment.status, "revised");
  assert.equal(done.ok && done.segment.target, "# Titre");
  const missing = await reviseSegment(api, sid, "f_1", 3, "x");
  assert.equal(!missing.ok && missing.why, "missing");
});

test("memory import posts the format and the content", async () => {
  const { fake, api } = setup();
  const result = await api.importMemory("csv", "source,target\ntool,outil\nbad\n");
  assert.deepEqual(result, { added: 1, updated: 0, skipped: 1 });
  assert.deepEqual(fake.requests.at(-1).body, { format: "csv", content: "source,target\ntool,outil\nbad\n" });
  await assert.rejects(api.importMemory("xls", ""), (e) => e instanceof ApiError && e.status === 422);
});

test("a 402 says the budget is reached in the server's words and is not retried", async () => {
  const detail = "The session's budget would be exceeded: 900 of 1,000 tokens spent.";
  const fetch = async () => new Response(JSON.stringify({ error: detail, spent: { tokens: 900 }, budget: { tokens: 1000 } }), { status: 402 });
  const api = createApi({ base: "http://test/api/", fetch });
  const client = new StepClient(api, { sleep: async () => {} });
  const out = await client.drive({ sessionId: "s_1", userInput: "Translate doc.md into French." }).catch((e) => e);
  const err = out instanceof ApiError ? out : out.error;
  assert.ok(err instanceof ApiError, `got ${JSON.stringify(out)}`);
  assert.equal(err.status, 402);
  assert.equal(err.retryable, false);
  assert.equal(err.message, `The session's budget is reached. ${detail}`);
});

test("a pending plural proposal is listed with its string's context, its forms as JSON text", async () => {
  const { listedTarget } = await import("../../web/js/entries.js");
  const segments = [{ id: "s2", start: 0, end: 20, source: "{count} new messages", target: null, status: "untranslated", origin: null, updatedAt: null }];
  const pending = [{
    tool: { name: "Translate", callId: "c1" }, file_id: "f", start: 0, end: 20, origin: "model",
    src_string: "{count} new messages", translate_string: { one: "{count} wiadomość", other: "{count} wiadomości" },
    context: { key: "new_messages", note: null }, plural: { categories: ["one", "other"] },
  }];
  const [row] = withPending(segments, pending);
  assert.equal(row.status, "pending");
  assert.deepEqual(row.context, { key: "new_messages", note: null });
  assert.equal(listedTarget(row), "one: {count} wiadomość · other: {count} wiadomości");
});

test("a model that keeps going without a proposal or progress is stopped after a bounded number of steps", async () => {
  const { fake, client, sid } = setup();
  const first = await client.drive({ sessionId: sid, userInput: "Go." });
  assert.equal(first.kind, "review");
  fake.stuck = true;
  const out = await client.drive(approveAll(sid, first.requests));
  assert.equal(out.kind, "stalled");
  assert.equal(out.steps, client.maxIdleSteps);
  const continues = fake.requests.filter((r) => r.path === "next" && !r.body.userInput && !r.body.copilotResponses);
  assert.equal(continues.length, client.maxIdleSteps, "nothing more is spent once the cap is reached");
  // Continue goes on with what the outcome says, counting afresh; a step with progress resets the count.
  fake.stuck = false;
  const after = await client.drive(out.retry.body, { key: out.retry.key });
  assert.equal(after.kind, "review");
});

test("steps that make progress without a card (auto-approved units) never count as stalled", async () => {
  const { fake, api, sid } = setup({ batch: 1, document: Array.from({ length: 12 }, (_, i) => `Paragraph ${i}.`).join("\n\n") });
  const client = new StepClient(api, { sleep: async () => {}, maxIdleSteps: 2 });
  const s = fake.sessions.get(sid);
  // Every proposal is approved at once, as auto-approval does: the agent keeps the turn, progress grows.
  const propose = fake.propose.bind(fake);
  fake.propose = (session) => {
    const out = propose(session);
    for (const p of session.pending) session.written.set(p.start, { start: p.start, end: p.end, source: p.src_string, target: p.translate_string, status: "approved" });
    const left = fake.remaining(session).length > 0;
    session.pending = [];
    return { ...out, actor: left ? "agent" : "user", copilotRequests: [] };
  };
  const out = await client.drive({ sessionId: sid, userInput: "Go." });
  assert.equal(out.kind, "idle");
  assert.equal(fake.progress(s).complete, true);
});
