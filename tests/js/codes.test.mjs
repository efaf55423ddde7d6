import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

import { chipLabel, codeBalance, nextMissing, PATTERNS, syntaxesOf, tokenize } from "../../web/js/codes.js";
import { planEdit, stepOver } from "../../web/js/codeedit.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const VENV = `${ROOT}.venv/bin/python`;
const PYTHON = existsSync(VENV) ? VENV : existsSync("/work/main/.venv/bin/python") ? "/work/main/.venv/bin/python" : "python3";

/** Run `code` in the project's Python with `input` as JSON on stdin; its JSON output, or null without Python. */
function python(code, input) {
  const r = spawnSync(PYTHON, ["-c", code], { cwd: ROOT, input: JSON.stringify(input), encoding: "utf8" });
  if (r.error) return null;
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const codesOf = (text, codes) => tokenize(text, codes).map((t) => t.code);

test("the table is the server's own (langfacts/codes.py PATTERNS), in its order", (t) => {
  const table = python("import json; from langfacts.codes import PATTERNS; print(json.dumps(PATTERNS))", null);
  if (table === null) return t.skip("no Python to read langfacts/codes.py");
  assert.deepEqual(Object.entries(PATTERNS), Object.entries(table));
});

const SAMPLES = [
  ['The account "<xliff:g id="account">%1$s</xliff:g>" will be removed from <xliff:g id="app_name">%2$s</xliff:g>.', ["printf", "html"]],
  ["Join {{appName}} meeting, {{count}} people; 50%off and 100% of %d items, %% sign", ["double_brace", "printf"]],
  ["We invited <0>{numPersons, plural, =0 {no persons} other {# persons}}</0>.", ["double_brace", "nesting", "brace", "numbered_tags", "html"]],
  ["Click {1}here{/1} or {2}", ["inline"]],
  ['See <a href="docs/backbone.html"><b>Catalog</b></a><br/>', ["html"]],
  ["%{count} files on %b %-d, %Y at %H:%M", ["ruby", "strftime"]],
];

test("a text's codes are the ones the server finds (find_codes), in order", (t) => {
  const found = python(
    "import json, sys; from langfacts.codes import find_codes\n" +
      "print(json.dumps([list(find_codes(text, syntaxes)) for text, syntaxes in json.load(sys.stdin)]))",
    SAMPLES,
  );
  if (found === null) return t.skip("no Python to run langfacts/codes.py");
  SAMPLES.forEach(([text], i) => {
    const codes = [...new Set(found[i])];
    assert.deepEqual(codesOf(text, codes), found[i], text);
  });
});

test("the syntaxes of a code list are those that read one of them whole", () => {
  assert.deepEqual(syntaxesOf(["%1$s", "<b>"]), ["printf", "html"]);
  assert.deepEqual(syntaxesOf(["{{count}}"]), ["double_brace"]);
  assert.deepEqual(syntaxesOf(["{1}", "{/1}"]), ["inline", "brace"]); // brace reads {1} too
  assert.deepEqual(syntaxesOf([]), []);
});

test("paired tags pair, numbered in the order they open; an unclosed open and a stray close stay single", () => {
  const codes = ['<a href="x">', "<b>", "</b>", "</a>", "<br/>"];
  const tokens = tokenize('<a href="x"><b>Bold</b> link</a><br/> and </b> <b>', codes);
  assert.deepEqual(
    tokens.map((t) => [t.code, t.kind, t.pair]),
    [['<a href="x">', "open", 0], ["<b>", "open", 1], ["</b>", "close", 1], ["</a>", "close", 0], ["<br/>", "single", null], ["</b>", "close", null], ["<b>", "single", null]],
  );
  const numbered = tokenize("<0>a</0><1>b</1>", ["<0>", "</0>", "<1>", "</1>"]);
  assert.deepEqual(numbered.map((t) => t.pair), [0, 0, 1, 1]);
  const inline = tokenize("{1}x{/1} {2}", ["{1}", "{/1}", "{2}"]);
  assert.deepEqual(inline.map((t) => [t.kind, t.pair]), [["open", 0], ["close", 0], ["single", null]]);
  const xliff = tokenize('<xliff:g id="a">%1$s</xliff:g>', ['<xliff:g id="a">', "%1$s", "</xliff:g>"]);
  assert.deepEqual(xliff.map((t) => [t.code, t.kind]), [['<xliff:g id="a">', "open"], ["%1$s", "single"], ["</xliff:g>", "close"]]);
});

test("%% is a literal percent, and a code no syntax reads is found literally", () => {
  assert.deepEqual(codesOf("100%% done, %s", ["%s"]), ["%s"]);
  assert.deepEqual(codesOf("Hi [[name]] and [[name]]", ["[[name]]"]), ["[[name]]", "[[name]]"]);
  assert.deepEqual(tokenize("no codes", []), []);
});

test("missing and extra codes are counted against the source, in order", () => {
  const source = "<b>%1$s</b> has %2$s new <i>mails</i>";
  const codes = ["<b>", "%1$s", "</b>", "%2$s", "<i>", "</i>"];
  assert.deepEqual(codeBalance(source, "<b>%1$s</b> a %2$s nouveaux <i>mails</i>", codes), { missing: [], extra: [] });
  assert.deepEqual(codeBalance(source, "%1$s</b> a %2$s %2$s <i>courriels", codes), {
    missing: [{ code: "<b>", n: 1 }, { code: "</i>", n: 1 }],
    extra: [{ code: "%2$s", n: 1 }],
  });
  assert.deepEqual(codeBalance(source, "<b>%1$s</b> %3$s %2$s <i>x</i>", codes).extra, [{ code: "%3$s", n: 1 }]);
});

test("the next missing code is the first the text lacks, in source order (repeats counted)", () => {
  const codes = ["<b>", "</b>", "{{count}}"];
  assert.equal(nextMissing("<b>{{count}}</b> and {{count}}", "<b>{{count}}</b> et", codes), "{{count}}");
  assert.equal(nextMissing("<b>x</b>", "x</b>", codes), "<b>");
  assert.equal(nextMissing("<b>x</b>", "<b>x</b>", codes), null);
});

test("a long tag's chip names it; short codes show as they are", () => {
  assert.equal(chipLabel("%1$s"), "%1$s");
  assert.equal(chipLabel('<a href="http://github.com/documentcloud/backbone">'), "<a …>");
});

const CODES = ["<b>", "</b>", "%1$s"];
const edit = (value, start, end = start, armed = null) => ({ value, start, end, armed });
const plan = (box, type, data = null) => planEdit(box, tokenize(box.value, CODES), type, data);

test("typing inside a code lands after it; typing over codes keeps them", () => {
  const value = "Hi <b>%1$s</b>!";
  assert.deepEqual(plan(edit(value, 4), "insertText", "x"), { kind: "replace", start: 6, end: 6, text: "x", caret: 7 });
  assert.deepEqual(plan(edit(value, 0, 1), "insertText", "Y"), { kind: "allow" });
  assert.deepEqual(plan(edit(value, 0, value.length), "insertText", "S"), { kind: "replace", start: 0, end: value.length, text: "S<b>%1$s</b>", caret: 1 });
  // A paste that brings its own codes adds none of the replaced ones again.
  assert.deepEqual(plan(edit(value, 2, 14), "insertFromPaste", " <b>%1$s</b>"), { kind: "replace", start: 2, end: 14, text: " <b>%1$s</b>", caret: 14 });
  // Part of a code selected: the whole code counts as selected.
  assert.deepEqual(plan(edit(value, 5, 8), "insertText", "z"), { kind: "replace", start: 3, end: 10, text: "z<b>%1$s", caret: 4 });
  assert.deepEqual(plan(edit("no codes", 2), "insertText", "x"), { kind: "allow" });
});

test("deleting a code takes two presses: the first selects it, the second (same selection) deletes it", () => {
  const value = "Hi <b>%1$s</b>!";
  const first = plan(edit(value, 14), "deleteContentBackward");
  assert.deepEqual(first, { kind: "arm", start: 10, end: 14 });
  const armed = { start: 10, end: 14, value };
  assert.deepEqual(plan(edit(value, 10, 14, armed), "deleteContentBackward"), { kind: "allow" });
  // Armed for another text (typed meanwhile), it arms again.
  assert.deepEqual(plan(edit(value, 10, 14, { ...armed, value: "x" }), "deleteContentBackward"), { kind: "arm", start: 10, end: 14 });
  assert.deepEqual(plan(edit(value, 3), "deleteContentForward"), { kind: "arm", start: 3, end: 6 });
  assert.deepEqual(plan(edit(value, 2), "deleteContentBackward"), { kind: "allow" });
  // A selection through part of a code arms the whole code; the second press deletes the grown range.
  assert.deepEqual(plan(edit(value, 1, 4), "deleteByCut"), { kind: "arm", start: 1, end: 6 });
  assert.deepEqual(plan(edit(value, 1, 4, { start: 1, end: 6, value }), "deleteContentBackward"), { kind: "replace", start: 1, end: 6, text: "", caret: 1 });
});

test("a word or line deleted back stops at a code; undo and plain text are the browser's", () => {
  const value = "<b>bold words</b> and more";
  assert.deepEqual(plan(edit(value, 13), "deleteWordBackward"), { kind: "allow" });
  assert.deepEqual(plan(edit(value, 8), "deleteWordBackward"), { kind: "replace", start: 3, end: 8, text: "", caret: 3 });
  assert.deepEqual(plan(edit(value, 26), "deleteSoftLineBackward"), { kind: "replace", start: 17, end: 26, text: "", caret: 17 });
  assert.deepEqual(plan(edit(value, 17), "deleteWordBackward"), { kind: "arm", start: 13, end: 17 });
  assert.deepEqual(plan(edit(value, 5), "historyUndo"), { kind: "allow" });
  assert.equal(plan(edit(value, 5), "insertFromDrop", "x").kind, "block");
});

test("the caret steps over a code in one move", () => {
  const tokens = tokenize("a<b>c", CODES);
  assert.equal(stepOver(tokens, 1, true), 4);
  assert.equal(stepOver(tokens, 4, false), 1);
  assert.equal(stepOver(tokens, 0, true), null);
});

test("a pair's colour follows its opening code's place among the source's, whatever is missing", () => {
  const codes = ['<a href="x">', "<b>", "</b>", "</a>"];
  const hues = (text) => tokenize(text, codes).map((t) => [t.code, t.hue]);
  assert.deepEqual(hues('<a href="x"><b>x</b></a>'), [['<a href="x">', 0], ["<b>", 1], ["</b>", 1], ["</a>", 0]]);
  assert.deepEqual(hues("<b>x</b></a>"), [["<b>", 1], ["</b>", 1], ["</a>", null]]);
});
