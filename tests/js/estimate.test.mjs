// The segment list's estimate filter and order (web/js/segmodel.js), without the DOM.
import assert from "node:assert/strict";
import { test } from "node:test";

import { estimateBand, estimateBounds, filterSegments } from "../../web/js/segmodel.js";

const seg = (start, status, estimate) => ({ id: `s${start}`, start, end: start + 1, source: `src ${start}`, target: "t", status, estimate });
const LIST = [seg(0, "approved", 90), seg(2, "pending", 40), seg(4, "untranslated", null), seg(6, "pending", 75), seg(8, "pending", 40)];

test("the estimate bounds filter out segments without an estimate", () => {
  assert.deepEqual(filterSegments(LIST, estimateBounds("75")).map((s) => s.start), [0, 6]);
  assert.deepEqual(filterSegments(LIST, estimateBounds("low")).map((s) => s.start), [2, 8]);
  assert.deepEqual(filterSegments(LIST, { ...estimateBounds(""), status: "pending" }).map((s) => s.start), [2, 6, 8]);
});

test("lowest estimate first, ties in document order, none last", () => {
  assert.deepEqual(filterSegments(LIST, { sort: "estimate" }).map((s) => s.start), [2, 8, 6, 0, 4]);
});

test("bands colour the estimate", () => {
  assert.deepEqual([95, 85, 84, 60, 59].map(estimateBand), ["high", "high", "mid", "mid", "low"]);
});
