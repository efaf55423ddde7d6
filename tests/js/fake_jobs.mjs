// The fake API (fake_api.mjs) with jobs (API.md "Jobs"), the Session view's standing (`state`,
// `retryAt`, `error`, `segmentsLeft`, `model`), the configured models and PATCH of a session's model.
// A hold (waiting or failed) is set by a test and ends, as on the server, with the next step that commits.

import { FakeApi } from "./fake_api.mjs";

const json = (status, body) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

export class FakeJobsApi extends FakeApi {
  constructor(options = {}) {
    super(options);
    this.jobs = new Map();
    this.models = options.models ?? [{ name: "pseudo", default: true, price: { input: 0, output: 0 } }];
    this.price = options.price ?? null; // dollars a step, when the model is priced
  }

  /** A held session: `{state: "waiting", retryAt, error}` or `{state: "failed", error}`. */
  hold(sid, hold) {
    this.sessions.get(sid).hold = hold;
  }

  view(s) {
    const left = this.remaining(s).length;
    const complete = left === 0;
    const hold = complete ? null : s.hold ?? null;
    return {
      ...super.view(s),
      state: complete ? "complete" : hold ? hold.state : "running",
      retryAt: hold?.retryAt ?? null,
      error: hold?.error ?? null,
      segmentsLeft: left,
      model: s.model ?? this.models[0].name,
    };
  }

  step(s, body) {
    const out = super.step(s, body);
    if (out.status === 200) {
      s.hold = null; // a step that commits ends a hold
      s.spent = (s.spent ?? 0) + 1;
    }
    return out;
  }

  async fetch(url, init = {}) {
    const u = new URL(url);
    const path = u.pathname.replace(/^\/api\//, "");
    const method = init.method || "GET";
    let m;
    if (method === "POST" && path === "jobs") {
      const body = JSON.parse(init.body);
      this.requests.push({ method, path, body });
      return this.createJob(body);
    }
    if (method === "GET" && (m = /^jobs\/([^/]+)$/.exec(path))) {
      this.requests.push({ method, path });
      const job = this.jobs.get(decodeURIComponent(m[1]));
      return job ? json(200, this.jobView(job)) : json(404, { error: "No job." });
    }
    if (method === "GET" && path === "models") {
      this.requests.push({ method, path });
      return json(200, { models: this.models });
    }
    if (method === "PATCH" && (m = /^sessions\/([^/]+)$/.exec(path))) {
      const body = JSON.parse(init.body);
      if ("model" in body) {
        this.requests.push({ method, path, body });
        const s = this.sessions.get(decodeURIComponent(m[1]));
        if (!s) return json(404, { error: "No such session." });
        if (!this.models.some((x) => x.name === body.model)) return json(422, { error: "model: not a configured model." });
        s.model = body.model;
        return json(200, this.view(s));
      }
    }
    return super.fetch(url, init);
  }

  createJob(body) {
    if (!Array.isArray(body.targetLanguages) || !body.targetLanguages.length || !body.files?.length) {
      return json(422, { error: "targetLanguages and files are required." });
    }
    const id = `j_${this.jobs.size + 1}`;
    const sessions = {};
    for (const tag of body.targetLanguages) {
      const sid = this.seed();
      const s = this.sessions.get(sid);
      // The task is stored with the files: the agent has the turn.
      s.started = true;
      s.messages.push({ kind: "request", parts: [{ part_kind: "user-prompt", content: `Translate ${body.files[0].name} into ${tag}.` }] });
      if (body.model) s.model = body.model;
      sessions[tag] = sid;
    }
    this.jobs.set(id, { id, createdAt: "2026-12-05T01:00:00.000+00:00", sessions });
    return json(201, { id, sessions });
  }

  jobView(job) {
    const languages = {};
    const figures = (n) => ({ modelRequests: n, inputTokens: 1000 * n, outputTokens: 100 * n, usd: this.price === null ? 0 : this.price * n });
    for (const [tag, sid] of Object.entries(job.sessions)) {
      const s = this.sessions.get(sid);
      const v = this.view(s);
      languages[tag] = {
        sessionId: sid,
        progress: { ...this.progress(s), segments: s.units.length, segmentsLeft: v.segmentsLeft },
        state: v.state,
        retryAt: v.retryAt,
        error: v.error,
        spent: figures(s.spent ?? 0),
        estimate: figures(3),
      };
    }
    const all = Object.values(languages);
    const add = (k) => (f) => all.reduce((n, l) => n + l[k][f], 0);
    const total = (k) => ({ modelRequests: add(k)("modelRequests"), inputTokens: add(k)("inputTokens"), outputTokens: add(k)("outputTokens"), usd: add(k)("usd") });
    return { id: job.id, createdAt: job.createdAt, languages, spent: total("spent"), estimate: total("estimate") };
  }
}
