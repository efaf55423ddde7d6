// A concordance hit's text cut at the server's spans (web/js/memoryspans.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { cleanSpans, markedPieces } from "../../web/js/memoryspans.js";

/** The pieces as "plain [marked] plain" for short assertions. */
const shown = (pieces) => pieces.map((p) => (p.mark ? `[${p.text}]` : p.text)).join("");

test("the spans' parts are marked, the rest is plain text, nothing is lost", () => {
  const text = "Open the tool, then close the Tool.";
  const pieces = markedPieces(text, [[9, 13], [30, 34]]);
  assert.equal(shown(pieces), "Open the [tool], then close the [Tool].");
  assert.equal(pieces.map((p) => p.text).join(""), text);
  assert.equal(shown(markedPieces("tool", [[0, 4]])), "[tool]", "a match of the whole text");
  assert.equal(shown(markedPieces("a tool", [])), "a tool");
  assert.deepEqual(markedPieces("", [[0, 1]]), []);
});

test("offsets count code points as the server does: an emoji before a match shifts nothing", () => {
  // "😀" is one code point (Python's len 1) but two UTF-16 units in JavaScript.
  assert.equal(shown(markedPieces("😀 tool", [[2, 6]])), "😀 [tool]");
  assert.equal(shown(markedPieces("𝒳𝒴 café", [[3, 7]])), "𝒳𝒴 [café]");
});

test("unsorted, overlapping and touching spans are joined; those outside the text or malformed dropped", () => {
  assert.deepEqual(cleanSpans([[5, 8], [0, 2], [1, 3], [3, 4]], 10), [[0, 4], [5, 8]]);
  assert.deepEqual(cleanSpans([[8, 20], [-3, 1], [4, 4], [6, 5]], 10), [[0, 1], [8, 10]]);
  assert.deepEqual(cleanSpans([[1.5, 3], ["0", 2], [1], null, [2, 3]], 10), [[2, 3]]);
  assert.deepEqual(cleanSpans(null, 10), []);
  assert.deepEqual(cleanSpans("0,2", 10), []);
  assert.equal(shown(markedPieces("tool", [[2, 99]])), "to[ol]", "a span past the end is cut at it");
});

test("out-of-order and overlapping spans join into one mark", () => {
  assert.equal(shown(markedPieces("abcdef", [[3, 5], [1, 4], [0, 0]])), "a[bcde]f");
});
