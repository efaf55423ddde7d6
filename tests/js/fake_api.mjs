// A fake of the HTTP API (API.md) as a `fetch` function, for the client tests: sessions, the step
// with idempotency keys, copilot reviews, queued inputs, segments and revisions, memory import, and
// faults to inject (a lost answer after the step ran, 409, 503/504 with Retry-After).

const json = (status, body, headers = {}) =>
  new Response(body === null ? null : JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });

/** A document split into paragraphs; each paragraph is one unit. */
function paragraphs(text) {
  const out = [];
  const re = /\S[\s\S]*?(?=\n\s*\n|\s*$)/g;
  let m;
  while ((m = re.exec(text))) out.push({ start: [...text.slice(0, m.index)].length, text: m[0] });
  return out.map((p) => ({ ...p, end: p.start + [...p.text].length }));
}

export class FakeApi {
  constructor({ batch = 2, document = "# Title\n\nFirst paragraph.\n\nSecond one.\n\nThe end.\n", languages = true } = {}) {
    this.batch = batch;
    /** Whether sessions have `sourceLanguage` and PATCH (false: a server from before them). */
    this.languages = languages;
    this.document = document;
    this.sessions = new Map();
    this.keys = new Map(); // Idempotency-Key → {body, response}
    this.faults = []; // [{route: "next" | "session" | "segments" | "revise", kind, retryAfter}]
    this.requests = []; // [{method, path, key, body}]
    this.steps = 0; // steps actually performed
    this.memory = [];
    this.supportsSegments = true;
    /** A model whose every Translate call is refused: "continue" steps keep the agent's turn, propose nothing. */
    this.stuck = false;
    this.fetch = this.fetch.bind(this);
  }

  /** A session with one uploaded file, like the UI's start. */
  seed() {
    const id = `s_${this.sessions.size + 1}`;
    const units = paragraphs(this.document);
    this.sessions.set(id, {
      id,
      messages: [],
      pending: [],
      written: new Map(), // start → {start, end, source, target, status, origin, updatedAt}
      units,
      queued: [],
      version: 0,
      started: false,
      sourceLanguage: null, // detected from the text by a real server; set by PATCH here
    });
    return id;
  }

  view(s) {
    return {
      id: s.id,
      messages: s.messages,
      messageCount: s.messages.length,
      pendingCopilotRequests: s.pending,
      actor: s.pending.length ? "user" : s.started && this.remaining(s).length ? "agent" : "user",
      files: [{ fileId: "f_1", name: "doc.md", chars: [...this.document].length, progress: this.progress(s) }],
      queuedInputs: [...s.queued],
      ...(this.languages ? { sourceLanguage: s.sourceLanguage, targetLanguage: "fr" } : {}),
    };
  }

  remaining(s) {
    return s.units.filter((u) => !s.written.has(u.start));
  }

  progress(s) {
    const translatedChars = [...s.written.values()].reduce((n, w) => n + w.end - w.start, 0);
    const totalChars = [...this.document].length;
    return { translatedChars, totalChars, complete: this.remaining(s).length === 0 };
  }

  /** One agent step: propose the next units, or say it is done. */
  propose(s) {
    s.version++;
    if (this.stuck) {
      const refused = { kind: "request", parts: [{ part_kind: "retry-prompt", tool_name: "Translate", content: "No segment s99." }] };
      s.messages.push(refused);
      return { actor: "agent", messages: [refused], copilotRequests: [] };
    }
    const next = this.remaining(s).slice(0, this.batch);
    if (!next.length) {
      s.messages.push({ kind: "response", parts: [{ part_kind: "text", content: "The translation is complete." }] });
      return { actor: "user", messages: [s.messages.at(-1)], copilotRequests: [] };
    }
    s.pending = next.map((u, i) => ({
      tool: { name: "Translate", callId: `call_${s.version}_${i}` },
      file_id: "f_1",
      src_string: u.text,
      translate_string: u.text.toUpperCase(),
      start: u.start,
      end: u.end,
      origin: "model",
      warnings: i === 0 && u.text.includes("First") ? [{ code: "number", message: "Missing number: 1." }] : [],
    }));
    const message = { kind: "response", parts: s.pending.map((r) => ({ part_kind: "tool-call", tool_name: "Translate" })) };
    s.messages.push(message);
    return { actor: "user", messages: [message], copilotRequests: s.pending };
  }

  step(s, body) {
    this.steps++;
    if (body.userInput !== undefined) {
      if (s.pending.length) {
        s.queued.push(body.userInput);
        return { status: 200, body: { sessionId: s.id, queued: true, agentResponse: { actor: "user", messages: [], copilotRequests: s.pending, finishReason: null } } };
      }
      s.started = true;
      s.messages.push({ kind: "request", parts: [{ part_kind: "user-prompt", content: body.userInput }] });
      return { status: 200, body: { sessionId: s.id, agentResponse: { ...this.propose(s), finishReason: "tool_call" } } };
    }
    if (body.copilotResponses) {
      for (const r of body.copilotResponses) {
        if (!s.pending.some((p) => p.tool.callId === r.tool.callId && p.tool.name === r.tool.name)) {
          return { status: 409, body: { error: "A copilot response does not match a pending call." } };
        }
      }
      for (const r of body.copilotResponses) {
        const p = s.pending.find((q) => q.tool.callId === r.tool.callId);
        if (r.status === "reject") continue;
        s.written.set(p.start, {
          start: p.start,
          end: p.end,
          source: p.src_string,
          target: r.status === "refined" ? r.translated_string : p.translate_string,
          status: r.status === "refined" ? "refined" : "approved",
          origin: p.origin,
          updatedAt: "2025-01-01T00:00:00Z",
        });
      }
      s.pending = s.pending.filter((p) => !body.copilotResponses.some((r) => r.tool.callId === p.tool.callId));
      const returns = { kind: "request", parts: body.copilotResponses.map(() => ({ part_kind: "tool-return", tool_name: "Translate" })) };
      s.messages.push(returns);
      s.queued = [];
      const next = this.propose(s);
      return { status: 200, body: { sessionId: s.id, agentResponse: { ...next, messages: [returns, ...next.messages], finishReason: "tool_call" }, progress: this.view(s).files } };
    }
    if (s.pending.length) return { status: 200, body: { sessionId: s.id, agentResponse: { actor: "user", messages: [], copilotRequests: s.pending, finishReason: null } } };
    return { status: 200, body: { sessionId: s.id, agentResponse: { ...this.propose(s), finishReason: "tool_call" }, progress: this.view(s).files } };
  }

  segments(s) {
    const written = [...s.written.values()];
    const pending = new Map(s.pending.map((p) => [p.start, p]));
    return s.units.map((u) => {
      const w = s.written.get(u.start);
      if (w) return w;
      const p = pending.get(u.start);
      return { start: u.start, end: u.end, source: u.text, target: p ? p.translate_string : null, status: p ? "pending" : "untranslated", origin: p ? "model" : null, updatedAt: null };
    }).concat(written.length < 0 ? [] : []);
  }

  fault(route) {
    const i = this.faults.findIndex((f) => f.route === route);
    return i === -1 ? null : this.faults.splice(i, 1)[0];
  }

  async fetch(url, init = {}) {
    const u = new URL(url);
    const path = u.pathname.replace(/^\/api\//, "");
    const method = init.method || "GET";
    const body = init.body ? JSON.parse(init.body) : undefined;
    const key = init.headers?.["Idempotency-Key"];
    this.requests.push({ method, path: path + u.search, key, body });
    if (init.signal?.aborted) throw new DOMException("aborted", "AbortError");
    let m;
    if (method === "POST" && path === "next") return this.next(body, key);
    if (method === "GET" && (m = /^sessions\/([^/]+)$/.exec(path))) {
      const s = this.sessions.get(decodeURIComponent(m[1]));
      return s ? json(200, this.view(s)) : json(404, { error: "No such session." });
    }
    if (method === "PATCH" && (m = /^sessions\/([^/]+)$/.exec(path))) return this.patch(decodeURIComponent(m[1]), body);
    if ((m = /^sessions\/([^/]+)\/files\/f_1\/segments(?:\/(\d+))?$/.exec(path))) {
      const s = this.sessions.get(m[1]);
      if (!this.supportsSegments || !s) return json(404, { error: "Not Found" });
      if (method === "GET" && !m[2]) return this.listSegments(s, u.searchParams);
      if (method === "PUT" && m[2]) return this.revise(s, Number(m[2]), body);
    }
    if (method === "GET" && (m = /^sessions\/([^/]+)\/files\/f_1\/units$/.exec(path))) {
      const s = this.sessions.get(m[1]);
      return json(200, { units: [...s.written.values()].map((w) => ({ start: w.start, end: w.end, text: w.target, status: w.status === "approved" ? "approve" : w.status })) });
    }
    if (method === "GET" && /^sessions\/[^/]+\/files\/f_1\/source$/.test(path)) {
      return new Response(this.document, { status: 200, headers: { "Content-Type": "text/markdown" } });
    }
    if (method === "POST" && path === "memory/import") return this.importMemory(body);
    return json(404, { error: "Not Found" });
  }

  next(body, key) {
    const down = this.faults.findIndex((f) => f.route === "next" && f.kind === "down");
    if (down !== -1) {
      this.faults.splice(down, 1);
      throw new TypeError("Failed to fetch"); // the request never reached the server
    }
    if (key && this.keys.has(key)) {
      const first = this.keys.get(key);
      if (first.body !== JSON.stringify(body)) return json(422, { error: "The same Idempotency-Key with a different body." });
      return json(first.status, first.response);
    }
    const s = this.sessions.get(body.sessionId);
    if (!s) return json(404, { error: "No such session." });
    const f = this.fault("next");
    if (f && (f.kind === "503" || f.kind === "504")) {
      return json(Number(f.kind), { error: "Throttled." }, f.retryAfter != null ? { "Retry-After": String(f.retryAfter) } : {});
    }
    if (f && f.kind === "409") {
      // Another tab committed first: our request changes nothing.
      if (f.before) f.before(s);
      return json(409, { error: "The session advanced concurrently." });
    }
    const { status, body: out } = this.step(s, body);
    if (key) this.keys.set(key, { body: JSON.stringify(body), status, response: out });
    if (f && f.kind === "lose") throw new TypeError("Failed to fetch"); // the step ran; the answer is lost
    return json(status, out);
  }

  listSegments(s, params) {
    let all = this.segments(s);
    const status = params.get("status");
    const q = (params.get("q") || "").toLowerCase();
    if (status) all = all.filter((g) => g.status === status);
    if (q) all = all.filter((g) => g.source.toLowerCase().includes(q) || (g.target || "").toLowerCase().includes(q));
    const from = Number(params.get("cursor") || 0);
    const limit = Number(params.get("limit") || 100);
    const page = all.slice(from, from + limit);
    return json(200, { segments: page, nextCursor: from + limit < all.length ? String(from + limit) : null });
  }

  revise(s, start, body) {
    const f = this.fault("revise");
    if ((f && f.kind === "409") || s.pending.length) return json(409, { error: "Reviews are pending or the session changed." });
    const w = s.written.get(start);
    if (!w) return json(404, { error: "No written unit begins there." });
    Object.assign(w, { target: body.translated_string, status: "revised", updatedAt: "2025-01-02T00:00:00Z" });
    s.version++;
    return json(200, w);
  }

  /** PATCH /api/sessions/{id}: `sourceLanguage` a BCP 47 tag (422 otherwise); 405 without the feature. */
  patch(id, body) {
    if (!this.languages) return json(405, { error: "Method Not Allowed" });
    const s = this.sessions.get(id);
    if (!s) return json(404, { error: "No such session." });
    const tag = body?.sourceLanguage;
    if (typeof tag !== "string" || !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(tag)) {
      return json(422, { error: "sourceLanguage: not a BCP 47 language tag." });
    }
    s.sourceLanguage = tag;
    s.version++;
    return json(200, this.view(s));
  }

  importMemory(body) {
    if (!["tmx", "csv", "tbx"].includes(body.format)) return json(422, { error: "format: unknown" });
    const rows = body.format === "csv" ? body.content.trim().split("\n").slice(1) : [];
    let added = 0;
    let skipped = 0;
    for (const row of rows) {
      const [source, target] = row.split(",");
      if (!source || !target) skipped++;
      else {
        this.memory.push({ source, target });
        added++;
      }
    }
    return json(200, { added, updated: 0, skipped });
  }
}
