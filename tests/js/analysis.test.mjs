// The analysis panel's text (web/js/analysis.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { analysisView, modelLabel } from "../../web/js/analysis.js";

const analysis = {
  segments: 12,
  words: 140,
  chars: 900,
  locked: 2,
  repetitions: 1,
  bands: { 101: { segments: 1, words: 4 }, 100: { segments: 3, words: 30 }, "95-99": { segments: 0, words: 0 }, none: { segments: 6, words: 90 } },
  targetLanguage: "fr",
  estimate: { modelRequests: 1, inputTokens: 2400, outputTokens: 650, usd: 0.0101, model: "openai:gpt-4.1" },
};

test("the totals, a row per category in the usual order, and the estimate", () => {
  const view = analysisView(analysis);
  assert.equal(view.summary, "12 segments, 140 words, 900 characters.");
  assert.deepEqual(
    view.rows.map((r) => r[0]),
    ["Kept as is (code, URLs)", "Repetitions", "Context match (101%)", "100% match", "95–99%", "85–94%", "75–84%", "50–74%", "No match"],
  );
  assert.deepEqual(view.rows[2], ["Context match (101%)", "1", "4"], "the context matches above the plain ones");
  assert.deepEqual(view.rows[3], ["100% match", "3", "30"]);
  assert.deepEqual(view.rows[5], ["85–94%", "0", "0"]); // a band the answer leaves out counts nothing
  assert.equal(view.estimate, "Estimate with openai:gpt-4.1: 1 model request, 2,400 input and 650 output tokens, about $0.0101.");
});

test("a free model and a model without a price say so", () => {
  assert.match(analysisView({ ...analysis, estimate: { ...analysis.estimate, usd: 0 } }).estimate, /, at no cost\.$/);
  const view = analysisView({ ...analysis, estimate: { ...analysis.estimate, usd: null, modelRequests: 3 } });
  assert.match(view.estimate, /3 model requests, .* no price known for this model\.$/);
});

test("a model's label gives its price per million tokens and marks the default", () => {
  assert.equal(modelLabel({ name: "openai:gpt-4.1", default: true, price: { input: 2, output: 8 } }), "openai:gpt-4.1 ($2.00 in, $8.00 out per million tokens), the default");
  assert.equal(modelLabel({ name: "openai:gpt-4.1-nano", default: false, price: { input: 0.1, output: 0.4 } }), "openai:gpt-4.1-nano ($0.100 in, $0.400 out per million tokens)");
  assert.equal(modelLabel({ name: "pseudo", default: false, price: { input: 0, output: 0 } }), "pseudo (free)");
  assert.equal(modelLabel({ name: "python:x:y", default: false, price: null }), "python:x:y (price unknown)");
});
