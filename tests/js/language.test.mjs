// A session's source language (web/js/languagetag.js) against the fake API: shown, checked, changed
// with PATCH /api/sessions/{id}, and every refusal said in words with nothing changed.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createApi } from "../../web/js/http.js";
import { changeSourceLanguage, parseTag, sourceLanguageOf } from "../../web/js/languagetag.js";
import { FakeApi } from "./fake_api.mjs";

function setup(options) {
  const fake = new FakeApi(options);
  const api = createApi({ base: "http://test/api/", fetch: fake.fetch });
  return { fake, api, sid: fake.seed() };
}

const patches = (fake) => fake.requests.filter((r) => r.method === "PATCH");

test("the source language is shown by name and tag, and as auto while the session has none", () => {
  assert.deepEqual(sourceLanguageOf({ sourceLanguage: "en" }), { tag: "en", label: "English (en)", known: true });
  assert.deepEqual(sourceLanguageOf({ sourceLanguage: "pt-BR" }).label, "Brazilian Portuguese (pt-BR)");
  assert.deepEqual(sourceLanguageOf({ sourceLanguage: null }), { tag: "", label: "auto", known: false });
  assert.deepEqual(sourceLanguageOf({}), { tag: "", label: "auto", known: false }, "a server without the field");
  assert.deepEqual(sourceLanguageOf(null).label, "auto");
});

test("a typed language becomes a canonical BCP 47 tag, or is refused", () => {
  assert.equal(parseTag("en"), "en");
  assert.equal(parseTag(" EN-us "), "en-US");
  assert.equal(parseTag("pt_br"), "pt-BR");
  assert.equal(parseTag("English"), "en", "a name from the list");
  assert.equal(parseTag("Brazilian Portuguese (pt-BR)"), "pt-BR", "the label the field shows");
  assert.equal(parseTag("zh-hant"), "zh-Hant");
  for (const bad of ["", "   ", "fr!", "123", "en--US", "a", "English language"]) assert.equal(parseTag(bad), null, bad);
});

test("changing it sends PATCH with the tag and the session view comes back with it", async () => {
  const { fake, api, sid } = setup();
  assert.equal((await api.session(sid)).sourceLanguage, null, "not known yet: the UI shows auto");
  const result = await changeSourceLanguage(api, sid, "de-ch");
  assert.equal(result.ok, true);
  assert.equal(result.ok && result.view.sourceLanguage, "de-CH");
  assert.deepEqual(patches(fake).map((r) => [r.path, r.body]), [[`sessions/${sid}`, { sourceLanguage: "de-CH" }]]);
  assert.equal(sourceLanguageOf(await api.session(sid)).label, "Swiss High German (de-CH)");
});

test("what is not a tag is refused before anything is sent", async () => {
  const { fake, api, sid } = setup();
  const result = await changeSourceLanguage(api, sid, "the usual");
  assert.equal(result.ok, false);
  assert.match(!result.ok ? result.message : "", /“the usual” is not a language tag/);
  assert.equal(patches(fake).length, 0);
});

test("422 and 404 are said in words, and the session keeps its language", async () => {
  const { fake, api, sid } = setup();
  await changeSourceLanguage(api, sid, "fr");
  const refused = await changeSourceLanguage(api, sid, "abcdefg"); // a tag in form, not one the server accepts
  assert.equal(refused.ok, false);
  assert.match(!refused.ok ? refused.message : "", /“abcdefg” was not accepted\..*not a BCP 47 language tag/);
  assert.equal((await api.session(sid)).sourceLanguage, "fr", "nothing changed");
  const gone = await changeSourceLanguage(api, "s_missing", "en");
  assert.match(!gone.ok ? gone.message : "", /does not exist any more/);
});

test("a server without the setting answers 405: the UI says it cannot change it yet", async () => {
  const { api, sid } = setup({ languages: false });
  assert.equal(sourceLanguageOf(await api.session(sid)).label, "auto");
  const result = await changeSourceLanguage(api, sid, "en");
  assert.match(!result.ok ? result.message : "", /this server cannot change it yet/);
});
