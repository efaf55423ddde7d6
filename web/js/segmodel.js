// @ts-check
// The whole document as segments (API.md "Files"), without the DOM: load every page of
// GET …/segments, or build the same list from /units and /source where the server has no segments
// route yet (404); filter, search, count; revise a written unit.

import { ApiError } from "./http.js";
import { codePoints, unitIndexer } from "./text.js";

/** @typedef {import("./types.js").Segment} Segment */
/** @typedef {import("./types.js").SegmentPage} SegmentPage */
/** @typedef {import("./types.js").SegmentQuery} SegmentQuery */
/** @typedef {import("./types.js").WrittenUnit} WrittenUnit */
/** @typedef {import("./types.js").CopilotRequest} CopilotRequest */

/**
 * @typedef {object} SegmentApi
 * @property {(id: string, fileId: string, q?: SegmentQuery) => Promise<SegmentPage>} segments
 * @property {(id: string, fileId: string) => Promise<{units: WrittenUnit[]}>} units
 * @property {(id: string, fileId: string) => Promise<string>} source
 * @property {(id: string, fileId: string, start: number, body: {translated_string: string, reason?: string, issue?: import("./types.js").MqmIssue}) => Promise<Segment>} revise
 */

export const STATUSES = ["untranslated", "pending", "approved", "refined", "revised", "translated", "reviewed", "verbatim"];

/** @type {Record<string, string>} */
export const STATUS_LABEL = {
  untranslated: "Untranslated",
  pending: "In review",
  approved: "Approved",
  refined: "Edited",
  revised: "Revised",
  translated: "Translated",
  reviewed: "Reviewed",
  verbatim: "As is",
};

/** Written statuses: a segment with one of these can be revised. @param {string} status */
export const isWritten = (status) => status !== "untranslated" && status !== "pending";

/**
 * The segments of `source` from its written units: the units, and the untranslated text between
 * them (whitespace-only gaps are layout, not segments). Offsets are code points, as the server's.
 * @param {string} source
 * @param {WrittenUnit[]} units
 * @returns {Segment[]}
 */
export function segmentsFromUnits(source, units) {
  const at = unitIndexer(source);
  const total = codePoints(source);
  /** @type {Segment[]} */
  const out = [];
  let pos = 0;
  const gap = (/** @type {number} */ from, /** @type {number} */ to) => {
    const text = source.slice(at(from), at(to));
    const lead = codePoints(text) - codePoints(text.trimStart());
    const trail = codePoints(text) - codePoints(text.trimEnd());
    if (!text.trim()) return;
    const start = from + lead;
    const end = to - trail;
    out.push({ start, end, source: source.slice(at(start), at(end)), target: null, status: "untranslated", origin: null, updatedAt: null });
  };
  for (const u of [...units].sort((a, b) => a.start - b.start)) {
    if (u.start > pos) gap(pos, u.start);
    out.push({
      start: u.start,
      end: u.end,
      source: source.slice(at(u.start), at(u.end)),
      target: u.text,
      status: u.status === "approve" ? "approved" : u.status,
      origin: null,
      updatedAt: null,
    });
    pos = Math.max(pos, u.end);
  }
  if (pos < total) gap(pos, total);
  return out;
}

/**
 * Mark the spans under review as "pending": a proposal takes the untranslated segments it covers
 * (a unit may join several) and leaves the rest of a segment it cuts untranslated.
 * @param {Segment[]} segments
 * @param {CopilotRequest[]} pending
 */
export function withPending(segments, pending) {
  // A request without `end` (older servers) ends after its source text.
  const reqs = pending
    .filter((r) => typeof r.start === "number")
    .map((r) => (typeof r.end === "number" ? r : { ...r, end: Number(r.start) + codePoints(r.src_string) }))
    .sort((a, b) => Number(a.start) - Number(b.start));
  if (!reqs.length) return segments;
  /** @type {Segment[]} */
  const out = [];
  const placed = new Set();
  for (const seg of segments) {
    const over = seg.status === "untranslated" ? reqs.filter((r) => Number(r.start) < seg.end && seg.start < Number(r.end)) : [];
    if (!over.length) {
      out.push(seg);
      continue;
    }
    const chars = Array.from(seg.source);
    /** The untranslated rest of the segment in [from, to), whitespace trimmed (none when blank). */
    const rest = (/** @type {number} */ from, /** @type {number} */ to) => {
      const text = chars.slice(from - seg.start, to - seg.start).join("");
      if (!text.trim()) return;
      const lead = codePoints(text) - codePoints(text.trimStart());
      const trail = codePoints(text) - codePoints(text.trimEnd());
      out.push({ ...seg, start: from + lead, end: to - trail, source: text.trim() });
    };
    let pos = seg.start;
    for (const r of over) {
      const start = Number(r.start);
      const end = Number(r.end);
      if (start > pos) rest(pos, start);
      if (!placed.has(r)) {
        placed.add(r);
        // A plural proposal's forms are listed as the server lists them: their JSON text, with the string's context.
        const target = typeof r.translate_string === "string" ? r.translate_string : JSON.stringify(r.translate_string);
        out.push({ id: seg.id, start, end, source: r.src_string, target, status: "pending", origin: r.origin ?? null, updatedAt: null, estimate: r.estimate ?? null, context: r.context ?? null });
      }
      pos = Math.max(pos, Math.min(end, seg.end));
    }
    if (pos < seg.end) rest(pos, seg.end);
  }
  return out;
}

/**
 * Every segment of a file, following nextCursor; `server` says whether the segments route answered.
 * @param {SegmentApi} api
 * @param {string} sessionId
 * @param {string} fileId
 * @param {{limit?: number, maxPages?: number}} [opts]
 * @returns {Promise<{segments: Segment[], server: boolean}>}
 */
export async function loadSegments(api, sessionId, fileId, { limit = 500, maxPages = 50 } = {}) {
  try {
    /** @type {Segment[]} */
    const all = [];
    /** @type {string | null} */
    let cursor = null;
    for (let page = 0; page < maxPages; page++) {
      /** @type {SegmentPage} */
      const res = await api.segments(sessionId, fileId, { cursor, limit });
      all.push(...res.segments);
      cursor = res.nextCursor;
      if (!cursor) break;
    }
    return { segments: all, server: true };
  } catch (err) {
    if (!(err instanceof ApiError) || (err.status !== 404 && err.status !== 405)) throw err;
  }
  // No segments route on this server yet: the same list from the written units and the source.
  const [units, source] = await Promise.all([api.units(sessionId, fileId), api.source(sessionId, fileId)]);
  return { segments: segmentsFromUnits(String(source), units.units || []), server: false };
}

/**
 * The search box's text as the server's filters: `key:PREFIX` (a string key's start, `key:button_`) and
 * the rest, searched in source and translation (`key:menu. Open` → key "menu.", q "Open").
 * @param {string} text @returns {{q: string, key: string}}
 */
export function searchTerms(text) {
  let key = "";
  const q = text.replace(/(?:^|\s)key:(\S*)/, (_, prefix) => {
    key = prefix;
    return " ";
  });
  return { q: q.trim(), key };
}

/**
 * The segments a filter and a search leave (search in source and target, case-insensitive).
 * @param {Segment[]} segments
 * @param {{status?: string, q?: string, minEstimate?: number | null, maxEstimate?: number | null, sort?: string}} filter
 */
export function filterSegments(segments, { status = "", q = "", minEstimate = null, maxEstimate = null, sort = "position" }) {
  const terms = searchTerms(q);
  const needle = terms.q.toLocaleLowerCase();
  const kept = segments.filter((s) => {
    if (status === "written" ? !isWritten(s.status) : status && s.status !== status) return false;
    if (terms.key && !s.context?.key?.startsWith(terms.key)) return false;
    const e = s.estimate ?? null;
    if (minEstimate != null && (e == null || e < minEstimate)) return false;
    if (maxEstimate != null && (e == null || e > maxEstimate)) return false;
    if (!needle) return true;
    return s.source.toLocaleLowerCase().includes(needle) || (s.target || "").toLocaleLowerCase().includes(needle);
  });
  if (sort !== "estimate") return kept;
  // The riskiest first (as `?sort=estimate`): the lowest estimate, then source order; none last.
  const key = (/** @type {Segment} */ s) => (s.estimate == null ? 1000 : s.estimate);
  return kept.map((s, i) => ({ s, i })).sort((a, b) => key(a.s) - key(b.s) || a.i - b.i).map((x) => x.s);
}

/**
 * The estimate's band, for its colour: `high` (85+), `mid` (60–84), `low`.
 * @param {number} estimate
 */
export function estimateBand(estimate) {
  return estimate >= 85 ? "high" : estimate >= 60 ? "mid" : "low";
}

/**
 * The estimate select's value as filter bounds: "90" → at least 90; "low" → under 50.
 * @param {string} value @returns {{minEstimate: number | null, maxEstimate: number | null}}
 */
export function estimateBounds(value) {
  if (value === "low") return { minEstimate: null, maxEstimate: 49 };
  const n = Number.parseInt(value, 10);
  return { minEstimate: Number.isFinite(n) ? n : null, maxEstimate: null };
}

/**
 * Progress in units and characters (code points of source text in written segments): `translated`
 * (reviewed and written: approved, edited, revised), `kept` (verbatim: code, URLs, written at upload
 * without a review), `pending`, and `untranslated` passages (a passage becomes one unit or several once
 * proposed, so the list's length is no total of units: it grows as the translation goes).
 * @param {Segment[]} segments
 */
export function segmentProgress(segments) {
  let units = 0;
  let chars = 0;
  let total = 0;
  /** @type {Record<string, number>} */
  const byStatus = {};
  for (const s of segments) {
    const n = s.end - s.start;
    total += n;
    byStatus[s.status] = (byStatus[s.status] || 0) + 1;
    if (isWritten(s.status)) {
      units++;
      chars += n;
    }
  }
  const kept = byStatus.verbatim || 0;
  const count = (/** @type {string} */ k) => byStatus[k] || 0;
  return {
    units, segments: segments.length, chars, total, byStatus,
    translated: units - kept, kept, pending: count("pending"), untranslated: count("untranslated"),
  };
}

/** @param {number} n @param {string} one @param {string} many */
const counted = (n, one, many) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/**
 * The unit counts of the progress line: the headline ("12 units translated", or "35 of 94 segments
 * written" when the server gave a total fixed at upload) and the rest ("3 kept as is", "4 in review",
 * "5 passages to translate"), none of them a total that changes as passages are split into units.
 * @param {ReturnType<typeof segmentProgress>} p @param {number | null} [fixedTotal] the file's segment count, when the server gives one
 * @returns {{head: string, rest: string[]}}
 */
export function progressParts(p, fixedTotal = null) {
  const head =
    typeof fixedTotal === "number" && fixedTotal >= p.units
      ? `${p.units.toLocaleString()} of ${counted(fixedTotal, "segment", "segments")} written`
      : `${counted(p.translated, "unit", "units")} translated`;
  const rest = [];
  if (p.kept) rest.push(`${p.kept.toLocaleString()} kept as is (code, URLs)`);
  if (p.pending) rest.push(`${p.pending.toLocaleString()} in review`);
  if (p.untranslated) rest.push(`${counted(p.untranslated, "passage", "passages")} to translate`);
  return { head, rest };
}

/**
 * Revise a written segment: the new Segment, or why not ("conflict": reload; "missing": gone;
 * "unsupported": the server has no such route yet).
 * @param {SegmentApi} api
 * @param {string} sessionId
 * @param {string} fileId
 * @param {number} start
 * @param {string} text
 * @param {string} [reason]
 * @param {import("./types.js").MqmIssue} [issue] the MQM issue the written text had
 * @returns {Promise<{ok: true, segment: Segment} | {ok: false, why: "conflict" | "missing" | "unsupported", error: ApiError}>}
 */
export async function reviseSegment(api, sessionId, fileId, start, text, reason, issue) {
  /** @type {{translated_string: string, reason?: string, issue?: import("./types.js").MqmIssue}} */
  const body = { translated_string: text };
  if (reason) body.reason = reason;
  if (issue) body.issue = issue;
  try {
    return { ok: true, segment: await api.revise(sessionId, fileId, start, body) };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.status === 409) return { ok: false, why: "conflict", error: err };
    if (err.status === 405) return { ok: false, why: "unsupported", error: err };
    if (err.status === 404) return { ok: false, why: "missing", error: err };
    throw err;
  }
}
