// What the memory panel says about an entry (web/js/memorytext.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { languagesLabel, originLabel } from "../../web/js/memorytext.js";

test("a learned entry says what it was learned from: a term from edits, a style note from reviews", () => {
  assert.equal(originLabel("glossary", "learned"), "learned from your edits");
  assert.equal(originLabel("style", "learned"), "learned from your reviews", "a note comes from a rejection's reason too");
  assert.doesNotMatch(originLabel("style", "learned"), /edits/);
  assert.equal(originLabel("style", "user"), "added by you");
  assert.equal(originLabel("glossary", "user"), "added by you");
  assert.equal(originLabel("glossary", "imported"), "imported");
  assert.equal(originLabel("glossary", undefined), "added by you");
});

test("an entry's languages are named by the target", () => {
  assert.equal(languagesLabel("auto>french"), "French");
  assert.equal(languagesLabel("auto>brazilian portuguese"), "Brazilian Portuguese");
  assert.equal(languagesLabel("auto>*"), "all languages");
  assert.equal(languagesLabel("auto>unknown"), "any language");
  assert.equal(languagesLabel(""), "all languages");
});
