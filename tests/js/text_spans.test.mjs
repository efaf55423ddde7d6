import assert from "node:assert/strict";
import { test } from "node:test";

import { markedParts } from "../../web/js/text.js";

const shown = (parts) => parts.map((p) => (p.hit ? `[${p.text}]` : p.text)).join("");

test("a search answer's spans mark the text; the pieces join back into it", () => {
  assert.equal(shown(markedParts("Open the file, then the other file", [[9, 13], [30, 34]])), "Open the [file], then the other [file]");
  assert.equal(shown(markedParts("no match", [])), "no match");
  assert.deepEqual(markedParts("", []), [{ text: "", hit: false }]);
});

test("spans are code points (an emoji is one), out of order or overlapping", () => {
  assert.equal(shown(markedParts("😀 file and file", [[2, 6]])), "😀 [file] and file");
  assert.equal(shown(markedParts("abcdef", [[3, 5], [1, 4], [0, 0]])), "a[bcde]f");
});
