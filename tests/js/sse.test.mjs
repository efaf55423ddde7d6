// Streamed steps without the DOM: the SSE parser (web/js/sse.js), the streamed `next` (web/js/http.js)
// and the step client's delta hook (web/js/client.js), over fetch fakes that stream their bodies.
import assert from "node:assert/strict";
import { test } from "node:test";

import { StepClient } from "../../web/js/client.js";
import { ApiError, createApi } from "../../web/js/http.js";
import { FormingAnswer, SseParser, readEvents } from "../../web/js/sse.js";
import { FakeApi } from "./fake_api.mjs";

const enc = new TextEncoder();

/** A body that yields `chunks` one by one, each after `before(i)` resolves (a slow network). */
function bodyOf(chunks, { before = async () => {}, failAfter = null } = {}) {
  let i = 0;
  return new ReadableStream({
    async pull(controller) {
      if (failAfter !== null && i === failAfter) return controller.error(new TypeError("network error"));
      if (i >= chunks.length) return controller.close();
      await before(i);
      controller.enqueue(enc.encode(chunks[i++]));
    },
  });
}

const sse = (event, data) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const STEP = { sessionId: "s_1", agentResponse: { actor: "user", messages: [], unprocessedToolCalls: [], copilotRequests: [] }, progress: [] };

function streaming(chunks, opts = {}) {
  const seen = [];
  const fetch = async (url, init) => {
    seen.push(init);
    return new Response(bodyOf(chunks, opts), { status: 200, headers: { "Content-Type": "text/event-stream" } });
  };
  return { api: createApi({ base: "http://test/api/", fetch }), seen };
}

test("events split anywhere come out whole, in order", () => {
  const text = `: keep-alive\r\nevent: delta\r\ndata: {"text":"Bon"}\r\n\r\nevent: delta\ndata: {"text":\ndata: "Bonjour"}\n\nevent: step\rdata: {"ok":true}\r\r`;
  for (const size of [1, 2, 3, 7, text.length]) {
    const parser = new SseParser();
    const events = [];
    for (let i = 0; i < text.length; i += size) events.push(...parser.push(text.slice(i, i + size)));
    events.push(...parser.end());
    assert.deepEqual(
      events.map((e) => [e.event, e.data]),
      [
        ["delta", '{"text":"Bon"}'],
        ["delta", '{"text":\n"Bonjour"}'],
        ["step", '{"ok":true}'],
      ],
      `chunks of ${size}`,
    );
  }
});

test("an event without its blank line is dropped; data without event is a message", () => {
  const parser = new SseParser();
  assert.deepEqual(parser.push("data: a\n\nevent: step\ndata: {}"), [{ event: "message", data: "a" }]);
  assert.deepEqual(parser.end(), []);
  assert.deepEqual(parser.push("\n"), []);
});

test("readEvents decodes characters split across chunks", async () => {
  const bytes = enc.encode(sse("delta", { text: "Très bien 👍" }));
  const chunks = [bytes.slice(0, 30), bytes.slice(30, 33), bytes.slice(33)];
  let i = 0;
  const body = new ReadableStream({ pull: (c) => (i < chunks.length ? c.enqueue(chunks[i++]) : c.close()) });
  const events = [];
  await readEvents(body, (e) => events.push(JSON.parse(e.data)));
  assert.deepEqual(events, [{ text: "Très bien 👍" }]);
});

test("a forming answer keeps the latest text and each proposal by callId", () => {
  const answer = new FormingAnswer();
  assert.equal(answer.empty, true);
  assert.equal(answer.apply({ proposal: { callId: "c1", src_string: "Hello", translate_string: "Bon" } }), true);
  assert.equal(answer.apply({ proposal: { callId: "c1", src_string: "Hello", translate_string: "Bon" } }), false);
  answer.apply({ proposal: { callId: "c2", src_string: "World", translate_string: "" } });
  answer.apply({ proposal: { callId: "c1", src_string: "Hello", translate_string: "Bonjour" } });
  assert.equal(answer.apply({ text: "Two units." }), true);
  assert.deepEqual([...answer.proposals.keys()], ["c1", "c2"]);
  assert.equal(answer.proposals.get("c1").translate_string, "Bonjour");
  assert.equal(answer.text, "Two units.");
});

test("a streamed next hears the deltas before it answers the step", async () => {
  const heard = [];
  let released = 0;
  const chunks = [
    sse("delta", { proposal: { callId: "c1", src_string: "Hi", translate_string: "Sa" } }),
    sse("delta", { proposal: { callId: "c1", src_string: "Hi", translate_string: "Salut" } }).slice(0, 20),
    sse("delta", { proposal: { callId: "c1", src_string: "Hi", translate_string: "Salut" } }).slice(20),
    sse("step", STEP),
  ];
  const { api, seen } = streaming(chunks, { before: async (i) => void (released = i) });
  const step = await api.next({ sessionId: "s_1" }, { key: "k", onDelta: (d) => heard.push([released, d.proposal.translate_string]) });
  assert.deepEqual(step, STEP);
  assert.deepEqual(heard, [
    [0, "Sa"],
    [2, "Salut"],
  ]);
  assert.match(seen[0].headers.Accept, /^text\/event-stream/);
  assert.equal(seen[0].headers["Idempotency-Key"], "k");
});

test("an error event is the ApiError the plain answer would have been", async () => {
  const { api } = streaming([sse("delta", { text: "x" }), sse("error", { error: "The provider answered 429; try again shortly.", status: 503 })]);
  await assert.rejects(api.next({}, { onDelta: () => {} }), (err) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 503);
    assert.equal(err.retryAfter, 2);
    assert.match(err.message, /busy or unavailable\. The provider answered 429/);
    return true;
  });
});

test("a stream cut before its step is a lost answer (status 0, retryable)", async () => {
  for (const opts of [{}, { failAfter: 1 }]) {
    const { api } = streaming([sse("delta", { text: "x" })], opts);
    await assert.rejects(api.next({}, { onDelta: () => {} }), (err) => err instanceof ApiError && err.status === 0 && err.retryable);
  }
});

test("a plain JSON answer to a streamed request is taken as it is (behind API Gateway)", async () => {
  const fetch = async () => new Response(JSON.stringify(STEP), { status: 200, headers: { "Content-Type": "application/json" } });
  const api = createApi({ base: "http://test/api/", fetch });
  assert.deepEqual(await api.next({}, { onDelta: () => assert.fail("no deltas") }), STEP);
});

test("without a delta hook the request asks for JSON only", async () => {
  const seen = [];
  const fetch = async (url, init) => {
    seen.push(init.headers.Accept);
    return new Response(JSON.stringify(STEP), { status: 200, headers: { "Content-Type": "application/json" } });
  };
  await createApi({ base: "http://test/api/", fetch }).next({});
  assert.deepEqual(seen, ["application/json"]);
});

/** FakeApi's answers as event streams: each proposal forms in two deltas; an error is an error event. */
function streamedFake(options) {
  const fake = new FakeApi(options);
  const fetch = async (url, init = {}) => {
    const response = await fake.fetch(url, init);
    if (!String(url).endsWith("/api/next") || !String(init.headers?.Accept).startsWith("text/event-stream")) return response;
    const data = await response.json();
    const chunks = response.ok
      ? [
          ...(data.agentResponse.copilotRequests || []).flatMap((r) => [
            sse("delta", { proposal: { callId: r.tool.callId, src_string: r.src_string, translate_string: r.translate_string.slice(0, 3) } }),
            sse("delta", { proposal: { callId: r.tool.callId, src_string: r.src_string, translate_string: r.translate_string } }),
          ]),
          sse("step", data),
        ]
      : [sse("error", { error: data.error, status: response.status })];
    return new Response(bodyOf(chunks), { status: 200, headers: { "Content-Type": "text/event-stream" } });
  };
  return { fake, api: createApi({ base: "http://test/api/", fetch }) };
}

test("the step client passes the deltas on and goes on as with plain answers", async () => {
  const { fake, api } = streamedFake();
  const sid = fake.seed();
  const slept = [];
  const client = new StepClient(api, { sleep: async (ms) => void slept.push(ms) });
  fake.faults.push({ route: "next", kind: "503" });
  const deltas = [];
  const steps = [];
  const out = await client.drive(
    { sessionId: sid, userInput: "Translate doc.md into French." },
    { onDelta: (d, body) => deltas.push([body.userInput ?? "continue", d.proposal.translate_string]), onStep: (r) => steps.push(r) },
  );
  assert.equal(out.kind, "review");
  assert.deepEqual(slept, [2000], "the streamed 503 waited as a plain one would");
  const formed = out.requests.flatMap((r) => [r.translate_string.slice(0, 3), r.translate_string]);
  assert.deepEqual(
    deltas.map(([, t]) => t).slice(-formed.length),
    formed,
  );
  assert.equal(steps.at(-1).agentResponse.copilotRequests.length, out.requests.length);
});
