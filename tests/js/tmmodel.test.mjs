// The translation memory's list in the memory panel (web/js/tmmodel.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { appendPage, changedOn, editProblem, emptyText, entryMeta, MAX_TARGET, originText, removeEntry, replaceEntry } from "../../web/js/tmmodel.js";

const entry = (id, extra = {}) => ({ id, source: `s${id}`, target: `t${id}`, language: "fr", ...extra });

test("a page is appended; an entry shown already stays once, where it was", () => {
  const first = [entry("a"), entry("b")];
  const next = appendPage(first, { entries: [entry("b", { target: "newer" }), entry("c")], nextCursor: null });
  assert.deepEqual(next.map((e) => e.id), ["a", "b", "c"]);
  assert.equal(next[1].target, "tb", "the one shown is kept");
  assert.deepEqual(appendPage([], { entries: [], nextCursor: null }), []);
  assert.deepEqual(appendPage(first, /** @type {any} */ ({})).map((e) => e.id), ["a", "b"], "a page without entries adds none");
  assert.deepEqual(appendPage([], { entries: [/** @type {any} */ ({ source: "x" }), entry("d")], nextCursor: null }).map((e) => e.id), ["d"], "an entry without an id is not shown");
});

test("an edit replaces the entry in place; a deletion removes only it", () => {
  const list = [entry("a"), entry("b"), entry("c")];
  const edited = replaceEntry(list, entry("b", { target: "nouveau" }));
  assert.deepEqual(edited.map((e) => e.target), ["ta", "nouveau", "tc"]);
  assert.equal(list[1].target, "tb", "the list given is not changed");
  assert.deepEqual(removeEntry(list, "b").map((e) => e.id), ["a", "c"]);
  assert.deepEqual(removeEntry(list, "zz").map((e) => e.id), ["a", "b", "c"]);
});

test("an entry's line says its key, how it came and when", () => {
  assert.equal(entryMeta(entry("a", { key: "menu.save", origin: "approved", updatedAt: "2026-12-07T01:02:03Z" })), "key menu.save · approved · 7 Dec 2026");
  assert.equal(entryMeta(entry("a", { origin: "refined" })), "edited in review");
  assert.equal(entryMeta(entry("a", { origin: "imported", updatedAt: "not a date" })), "imported");
  assert.equal(entryMeta(entry("a")), "");
  assert.equal(originText("something-new"), "something-new", "an origin not known here is said as the server says it");
  assert.equal(changedOn(null), "");
});

test("an edit is refused blank or too long, and accepted otherwise", () => {
  assert.match(editProblem("   "), /cannot be empty/);
  assert.match(editProblem(""), /cannot be empty/);
  assert.equal(editProblem("Enregistrer"), "");
  assert.equal(editProblem("é".repeat(MAX_TARGET)), "");
  assert.match(editProblem("é".repeat(MAX_TARGET + 1)), /longer than 5,000/);
  assert.equal(editProblem("😀".repeat(MAX_TARGET)), "", "counted in characters, not UTF-16 units");
});

test("the empty list says why: nothing yet, or nothing holding the filter", () => {
  assert.match(emptyText("", "French"), /^No translation memory into French yet\./);
  assert.equal(emptyText("  widget ", "French"), "No entry into French holds “widget”.");
});
