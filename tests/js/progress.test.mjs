// The workbench's progress line (web/js/segmodel.js): right before any review, and stable as the
// untranslated passages are proposed and split into units.
import assert from "node:assert/strict";
import { test } from "node:test";

import { progressParts, segmentProgress } from "../../web/js/segmodel.js";

const seg = (start, end, status) => ({ start, end, source: "x".repeat(end - start), target: status === "untranslated" ? null : "y", status });

/** A file of a heading, a two-sentence paragraph, a code block (kept at upload) and a last paragraph, as it is translated. */
const STAGES = [
  // Uploaded: the code block is written verbatim; the rest is three untranslated passages.
  [seg(0, 10, "untranslated"), seg(12, 60, "untranslated"), seg(62, 90, "verbatim"), seg(92, 120, "untranslated")],
  // The first batch: the heading and the paragraph's two sentences (one passage became two units).
  [seg(0, 10, "pending"), seg(12, 35, "pending"), seg(36, 60, "pending"), seg(62, 90, "verbatim"), seg(92, 120, "untranslated")],
  // Reviewed: approved, edited, and the last passage proposed.
  [seg(0, 10, "approved"), seg(12, 35, "refined"), seg(36, 60, "approved"), seg(62, 90, "verbatim"), seg(92, 120, "pending")],
  [seg(0, 10, "approved"), seg(12, 35, "refined"), seg(36, 60, "approved"), seg(62, 90, "verbatim"), seg(92, 120, "revised")],
];

const line = (segments, total) => {
  const { head, rest } = progressParts(segmentProgress(segments), total);
  return [head, ...rest].join(" · ");
};

test("before any review nothing is counted as translated: text kept as is is shown apart", () => {
  assert.equal(line(STAGES[0]), "0 units translated · 1 kept as is (code, URLs) · 3 passages to translate");
  assert.doesNotMatch(line(STAGES[0]), /\bof\b/, "no total of units that is not known yet");
});

test("the counts stay right as passages split into units: translated only grows, no total drifts", () => {
  assert.deepEqual(STAGES.map((s) => line(s)), [
    "0 units translated · 1 kept as is (code, URLs) · 3 passages to translate",
    "0 units translated · 1 kept as is (code, URLs) · 3 in review · 1 passage to translate",
    "3 units translated · 1 kept as is (code, URLs) · 1 in review",
    "4 units translated · 1 kept as is (code, URLs)",
  ]);
  const translated = STAGES.map((s) => segmentProgress(s).translated);
  assert.deepEqual(translated, [...translated].sort((a, b) => a - b));
  assert.deepEqual(STAGES.map((s) => segmentProgress(s).kept), [1, 1, 1, 1]);
});

test("with a segment count fixed at upload, the line says written of that total, verbatim included and named", () => {
  assert.equal(line(STAGES[0], 6), "1 of 6 segments written · 1 kept as is (code, URLs) · 3 passages to translate");
  assert.equal(line(STAGES[3], 6), "5 of 6 segments written · 1 kept as is (code, URLs)");
  assert.equal(line(STAGES[3], 2), "4 units translated · 1 kept as is (code, URLs)", "a total below what is written is ignored");
  assert.equal(line([seg(0, 5, "approved")]), "1 unit translated");
});
