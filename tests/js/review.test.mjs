// The defects of issue 14 that live in DOM-free code: counts, edit summaries, the Send offer, downloads.
import assert from "node:assert/strict";
import { test } from "node:test";

import { describeEdit, diffWords } from "../../web/js/diff.js";
import { dispositionName, retryAfterSeconds } from "../../web/js/http.js";
import { editDecision, editWarned, makeBatch, nextUndecided, responses, savable, summary, warningText } from "../../web/js/review.js";
import { codePoints, excerpt, lineExcerpt, unitIndexer } from "../../web/js/text.js";

const req = (i, warnings = []) => ({
  tool: { name: "Translate", callId: `c${i}` },
  src_string: `source ${i}`,
  translate_string: `proposal ${i}`,
  start: i * 10,
  end: i * 10 + 8,
  warnings,
});

test("characters are counted as the server counts them (code points, emoji are one)", () => {
  assert.equal(codePoints("👋 Hi"), 4);
  assert.equal("👋 Hi".length, 5);
  assert.equal(codePoints("e\u0301"), 2, "a combining mark is its own code point, as in Python");
  assert.equal(codePoints("🇫🇷"), 2);
  assert.equal(codePoints("\ud800x"), 2, "a lone surrogate counts once");
  const at = unitIndexer("😀a😀b");
  assert.deepEqual([0, 1, 2, 3, 4].map(at), [0, 2, 3, 5, 6]);
  assert.equal(excerpt("word ".repeat(40), 20), "word word word word…");
});

test("an edit that only removes backticks says so, instead of (none)", () => {
  assert.equal(describeEdit("Run `make` now.", "Run make now."), "only markup changed: 2 characters removed (“`”)");
  assert.equal(describeEdit("Hello, world", "Hello world"), "only punctuation changed: 1 character removed (“,”)");
  assert.equal(describeEdit("a  b", "a b"), "only spacing changed");
  assert.equal(describeEdit("same", "same"), "no change");
  assert.equal(describeEdit("the old text", "the new text here"), "1 word removed, 2 words added");
});

test("word diffs keep what is common and group a replaced phrase", () => {
  assert.deepEqual(diffWords("a b c", "a x y c"), [
    { op: "eq", text: "a " },
    { op: "del", text: "b " },
    { op: "ins", text: "x y " },
    { op: "eq", text: "c" },
  ]);
  const ops = diffWords("Use `tool`.", "Use tool.");
  assert.equal(ops.filter((o) => o.op === "del").map((o) => o.text).join(""), "``");
  assert.equal(ops.filter((o) => o.op !== "del").map((o) => o.text).join(""), "Use tool.");
});

test("after a reload with every card decided but not sent, Send is offered", () => {
  const requests = [req(1), req(2), req(3)];
  const saved = { c1: { status: "approve" }, c2: { status: "refined", text: "mine" }, c3: { status: "reject", reason: "no" } };
  const batch = makeBatch(requests, saved);
  const s = summary(batch);
  assert.equal(s.allDecided, true);
  assert.equal(s.canSend, true);
  assert.equal(s.canApproveAll, false);
  assert.deepEqual(responses(batch), [
    { tool: { name: "Translate", callId: "c1" }, status: "approve" },
    { tool: { name: "Translate", callId: "c2" }, status: "refined", translated_string: "mine" },
    { tool: { name: "Translate", callId: "c3" }, status: "reject", reason: "no" },
  ]);
  batch[1].mode = "edit";
  assert.equal(summary(batch).canSend, false, "not while a card is open");
});

test("a batch of twenty: counts, warnings and the next undecided card", () => {
  const batch = makeBatch(Array.from({ length: 20 }, (_, i) => req(i, i === 7 ? [{ code: "url", message: "Missing URL: x." }] : [])));
  assert.deepEqual(summary(batch), { total: 20, decided: 0, warned: 1, allDecided: false, canSend: false, canApproveAll: true });
  batch[0].decision = { status: "approve" };
  assert.equal(nextUndecided(batch, 0), 1);
  assert.equal(nextUndecided(batch, 19), 1);
  assert.deepEqual(savable(batch), { c0: { status: "approve" } });
  assert.equal(warningText(batch[7].req.warnings[0]), "Missing URL: x.");
  assert.equal(warningText("plain"), "plain");
  assert.deepEqual(editDecision(batch[3].req, "proposal 3"), { status: "approve" });
  assert.deepEqual(editDecision(batch[3].req, "changed"), { status: "refined", text: "changed" });
});

test("Retry-After and Content-Disposition are read as the RFC say", () => {
  assert.equal(retryAfterSeconds("3"), 3);
  assert.equal(retryAfterSeconds(null), null);
  assert.equal(retryAfterSeconds(new Date(10_000).toUTCString(), 5_000), 5);
  assert.equal(dispositionName(`attachment; filename="a.md"; filename*=UTF-8''%C3%A9t%C3%A9.md`), "été.md");
  assert.equal(dispositionName('attachment; filename="guide.translated.md"'), "guide.translated.md");
  assert.equal(dispositionName(null), null);
});

test("a batch waits for Send when the human's own edit drew a warning, not when only a proposal did", () => {
  const batch = makeBatch([req(0, [{ code: "number", message: "Missing number: 3." }]), req(1)]);
  batch[0].decision = { status: "approve" };
  assert.equal(editWarned(batch), false, "a warned proposal approved as it is");
  batch[1].decision = editDecision(batch[1].req, "mon texte");
  batch[1].editWarnings = [{ code: "number", message: "Missing number: 1." }];
  assert.equal(editWarned(batch), true);
  batch[1].decision = { status: "reject", reason: "" };
  assert.equal(editWarned(batch), false, "a rejection's text is not the human's translation");
});

test("code in the segment list keeps its lines and indentation, at most four", () => {
  assert.equal(lineExcerpt("```bash\npip install x\n  x --version\n```\n"), "```bash\npip install x\n  x --version\n```");
  assert.equal(lineExcerpt("\n    indented code\n"), "    indented code", "the first line's indentation is kept");
  assert.equal(lineExcerpt("1\n2\n3\n4\n5\n6"), "1\n2\n3\n4\n…");
  assert.equal(lineExcerpt("a\n2\n3", 2), "a\n2\n…");
});

test("an MQM issue goes with an edit or a rejection, never with an approval (issue 30)", () => {
  const issue = { category: "Accuracy/Omission", severity: "major" };
  assert.deepEqual(editDecision(req(1), "proposal 1", issue), { status: "approve" }, "an unchanged text is an approval");
  const batch = makeBatch([req(1), req(2), req(3)]);
  batch[0].decision = editDecision(req(1), "edited 1", issue);
  batch[1].decision = { status: "reject", reason: "wrong", issue: { category: "Terminology", severity: "minor" } };
  batch[2].decision = editDecision(req(3), "edited 3");
  const sent = responses(batch);
  assert.deepEqual(sent[0], { tool: { name: "Translate", callId: "c1" }, status: "refined", translated_string: "edited 1", issue });
  assert.deepEqual(sent[1].issue, { category: "Terminology", severity: "minor" });
  assert.equal("issue" in sent[2], false);
  assert.deepEqual(savable(batch)?.c1, batch[0].decision, "the issue survives a reload with its verdict");
});
