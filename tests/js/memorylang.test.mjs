// The memory panel's language filter (web/js/memorylang.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { ALL, OTHER, coversLanguage, filterByLanguage, languageChoices, languageFromTitle, languageKey, languageLabel, pairTarget } from "../../web/js/memorylang.js";
import { appliesTo } from "../../web/js/glossary.js";
import { languagesLabel } from "../../web/js/memorytext.js";

test("a tag, its regional variants and its English name are one language", () => {
  for (const spelling of ["fr", "FR", "fr-CA", "fr_FR", "French", "french"]) assert.equal(languageKey(spelling), "french", spelling);
  assert.equal(languageKey("de"), "german");
  assert.notEqual(languageKey("de"), languageKey("fr"));
  assert.equal(languageKey("Brazilian Portuguese"), "brazilian portuguese", "a name the runtime does not know stays as it is");
  for (const none of ["", null, undefined, "*", "unknown", "all"]) assert.equal(languageKey(none), "", String(none));
});

test("an entry's target is the part after '>', or the whole of a lone name", () => {
  assert.equal(pairTarget("auto>french"), "french");
  assert.equal(pairTarget("en>fr"), "fr");
  assert.equal(pairTarget("German"), "German");
  assert.equal(pairTarget(""), ALL);
  assert.equal(pairTarget(undefined), ALL);
  assert.equal(pairTarget("auto>"), ALL);
});

test("the filter keeps an entry for its language, for every language or an unknown one; 'all' keeps all", () => {
  assert.ok(coversLanguage("auto>french", "fr"));
  assert.ok(coversLanguage("auto>fr", "French"));
  assert.ok(coversLanguage("auto>fr-CA", "fr"));
  assert.ok(!coversLanguage("auto>german", "fr"));
  assert.ok(!coversLanguage("auto>de", "French"));
  assert.ok(coversLanguage("auto>*", "fr"));
  assert.ok(coversLanguage("auto>unknown", "fr"));
  assert.ok(coversLanguage(undefined, "fr"));
  assert.ok(coversLanguage("auto>german", ALL));
  assert.ok(coversLanguage("auto>german", null));
});

test("filtering a memory by language keeps the order and drops only other languages' entries", () => {
  const entries = [
    { id: "1", languages: "auto>french" },
    { id: "2", languages: "auto>german" },
    { id: "3", languages: "auto>*" },
    { id: "4", languages: "auto>fr" },
    { id: "5" },
  ];
  assert.deepEqual(filterByLanguage(entries, "fr").map((e) => e.id), ["1", "3", "4", "5"]);
  assert.deepEqual(filterByLanguage(entries, "German").map((e) => e.id), ["2", "3", "5"]);
  assert.deepEqual(filterByLanguage(entries, ALL).map((e) => e.id), ["1", "2", "3", "4", "5"]);
  assert.deepEqual(filterByLanguage([], "fr"), []);
});

test("the cards' glossary follows the same rule: a tag and a name match", () => {
  assert.ok(appliesTo("auto>fr", "French"));
  assert.ok(appliesTo("auto>french", "fr"));
  assert.ok(!appliesTo("auto>fr", "German"));
});

test("the choices: the session's language first, each other language once by label, then all", () => {
  const choices = languageChoices("fr", ["auto>german", "auto>french", "auto>fr", "de", "auto>*", "auto>unknown", "auto>spanish"]);
  assert.deepEqual(choices, [
    { value: "fr", label: "French (this session)" },
    { value: "german", label: "German" },
    { value: "spanish", label: "Spanish" },
    { value: ALL, label: "All languages" },
    { value: OTHER, label: "Another language…" },
  ]);
  assert.deepEqual(languageChoices(null, []).map((c) => c.value), [ALL, OTHER], "a session without a language: all of them first");
  assert.deepEqual(languageChoices("French", []).map((c) => c.value), ["French", ALL, OTHER], "a name is asked as it was given");
});

test("a language's label is its English name, a pair's its target's", () => {
  assert.equal(languageLabel("fr"), "French");
  assert.equal(languageLabel("auto>de"), "German");
  assert.equal(languageLabel("auto>brazilian portuguese"), "Brazilian Portuguese");
  assert.equal(languageLabel(ALL), "All languages");
  assert.equal(languagesLabel("auto>fr"), "French", "the entry's line names a tag's language too");
  assert.equal(languagesLabel("auto>*"), "all languages");
});

test("a session's language is the one its task names", () => {
  assert.equal(languageFromTitle("Translate guide.md into French."), "French");
  assert.equal(languageFromTitle("Translate a.md into Brazilian Portuguese. Instructions: into the void."), "Brazilian Portuguese");
  assert.equal(languageFromTitle("Translate."), null);
  assert.equal(languageFromTitle(null), null);
});
