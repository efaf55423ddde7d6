import assert from "node:assert/strict";
import { test } from "node:test";

import { appliesTo, glossaryPieces } from "../../web/js/glossary.js";

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
