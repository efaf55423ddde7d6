import assert from "node:assert/strict";
import { test } from "node:test";

import { appliesTo, glossaryPieces, isKeepTerm, keepsTerm, shownWarnings } from "../../web/js/glossary.js";
import { makeBatch, summary, warnedCards } from "../../web/js/review.js";

const tool = { source: "tool", target: "outil", languages: "auto>french" };
const line = { source: "command line", target: "ligne de commande" };
const cmd = { source: "command", target: "commande" };

const marked = (pieces) => pieces.filter((p) => p.term).map((p) => [p.text, p.term.target]);

test("whole words only, ignoring case, the entry kept for the tooltip", () => {
  const pieces = glossaryPieces("The Tool and its toolbox; tools, retool, TOOL.", [tool]);
  assert.deepEqual(marked(pieces), [["Tool", "outil"], ["TOOL", "outil"]]);
  assert.equal(pieces.map((p) => p.text).join(""), "The Tool and its toolbox; tools, retool, TOOL.");
});

test("a longer term wins over a shorter one inside it", () => {
  const pieces = glossaryPieces("Open the command line, then type a command.", [cmd, line]);
  assert.deepEqual(marked(pieces), [["command line", "ligne de commande"], ["command", "commande"]]);
});

test("letters beyond ASCII count as word characters; special characters in terms are literal", () => {
  assert.deepEqual(marked(glossaryPieces("Le modèleé modèle", [{ source: "modèle", target: "model" }])), [["modèle", "model"]]);
  assert.deepEqual(marked(glossaryPieces("Use C++ or C", [{ source: "C++", target: "C++" }])), [["C++", "C++"]]);
});

test("no terms or no text: the text as one plain piece", () => {
  assert.deepEqual(glossaryPieces("Nothing here.", []), [{ text: "Nothing here.", term: null }]);
  assert.deepEqual(glossaryPieces("", [tool]), []);
  assert.deepEqual(glossaryPieces("Blank term.", [{ source: "  ", target: "x" }]), [{ text: "Blank term.", term: null }]);
});

test("entries apply to their target language, every language, or an unknown one", () => {
  assert.ok(appliesTo("auto>french", "French"));
  assert.ok(!appliesTo("auto>german", "French"));
  assert.ok(appliesTo("auto>*", "French"));
  assert.ok(appliesTo(undefined, "French"));
  assert.ok(appliesTo("auto>unknown", "French"));
  assert.ok(appliesTo("auto>german", null));
});

const glossaryWarning = (term, target) => ({ code: "glossary", message: `Glossary: «${term}» should be translated as «${target}».` });

test("an entry whose translation is its term is a term to keep", () => {
  assert.equal(isKeepTerm("Clippy", "Clippy"), true);
  assert.equal(isKeepTerm(" Visual Studio Code ", "visual studio code"), true);
  assert.equal(isKeepTerm("tool", "outil"), false);
  assert.equal(isKeepTerm("", ""), false);
});

test("a text keeps a term when a word begins with it, in any case and with an ending", () => {
  assert.equal(keepsTerm("Lancez Clippy.", "Clippy"), true);
  assert.equal(keepsTerm("die Warnungen Clippys", "Clippy"), true, "an inflected name is kept");
  assert.equal(keepsTerm("CLIPPY le dit", "Clippy"), true);
  assert.equal(keepsTerm("Visual  Studio\nCode s'ouvre", "Visual Studio Code"), true);
  assert.equal(keepsTerm("Ćĺíṕṕý le dit", "Clippy"), false, "a pseudo-translated name is not kept");
  assert.equal(keepsTerm("unClippy", "Clippy"), false, "not inside a longer word");
  assert.equal(keepsTerm("anything", " "), false);
});

test("a kept term draws no warning; a changed one says to keep it, not to translate it as itself", () => {
  const warnings = [glossaryWarning("Clippy", "Clippy"), glossaryWarning("tool", "outil"), { code: "missing_number", message: "Missing number: 3." }];
  assert.deepEqual(
    shownWarnings(warnings, "Les avertissements de Clippys, 3 fois."),
    [glossaryWarning("tool", "outil"), { code: "missing_number", message: "Missing number: 3." }],
  );
  const changed = shownWarnings(warnings, "Ćĺíṕṕý ţóóĺ");
  assert.equal(changed.length, 3);
  assert.deepEqual(changed[0], { code: "glossary", message: "Glossary: keep «Clippy» as it is (a term not to translate)." });
  assert.doesNotMatch(JSON.stringify(changed), /should be translated as «Clippy»/);
  assert.deepEqual(shownWarnings(["Glossary: «Git» should be translated as «git».", null], "Utilisez git."), [], "plain-string warnings too");
  assert.deepEqual(shownWarnings([{ code: "links", message: "Glossary: «a» should be translated as «a»." }], "b").length, 1, "another check's code is left alone");
});

test("Approve all does not ask about a card whose only warning is a kept term", () => {
  const req = (i, proposal, warnings) => ({ tool: { name: "Translate", callId: `c${i}` }, src_string: `Clippy ${i}`, translate_string: proposal, start: i * 10, warnings });
  const keep = [glossaryWarning("Clippy", "Clippy")];
  const batch = makeBatch([req(1, "Clippy dit 1", keep), req(2, "Clippys Warnung 2", keep), req(3, "Bonjour 3", [])]);
  assert.deepEqual(warnedCards(batch), [], "no card to ask about");
  assert.equal(summary(batch).warned, 0);
  const changed = makeBatch([req(1, "Ćĺíṕṕý 1", keep), req(2, "Clippy 2", keep)]);
  assert.deepEqual(warnedCards(changed).map((b) => b.req.tool.callId), ["c1"], "the card that changed the term is asked about");
  assert.match(String(/** @type {any} */ (changed[0].warnings[0]).message), /keep «Clippy» as it is/);
});
