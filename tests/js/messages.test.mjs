import assert from "node:assert/strict";
import { test } from "node:test";

import { timelineEntries } from "../../web/js/messages.js";

const returns = (...contents) => [
  {
    kind: "request",
    parts: contents.map((content, k) => ({ part_kind: "tool-return", tool_name: "Translate", tool_call_id: `c${k}`, content })),
  },
];

test("Translate results read as the reviewer's verdicts, the bare 'approve' included", () => {
  const texts = timelineEntries(
    returns("approve", { status: "approve", translated_string: "Bonjour" }, { status: "refined" }, { status: "reject", reason: "Too literal" }),
  ).map((e) => e.text);
  assert.deepEqual(texts, ["Unit approved", "Unit approved", "Unit edited and approved", "Unit rejected: Too literal"]);
});

test("a Remember call shows what the memory kept, and not the call itself", () => {
  const messages = [
    { kind: "response", parts: [{ part_kind: "tool-call", tool_name: "Remember", tool_call_id: "r", args: {} }] },
    {
      kind: "request",
      parts: [
        { part_kind: "tool-return", tool_name: "Remember", tool_call_id: "r", content: "Kept: «tool» → «outil». Not kept: «x» → «y» (why)." },
        { part_kind: "tool-return", tool_name: "Remember", tool_call_id: "s", content: "Nothing kept. Not kept: a style note (over 300 characters)." },
      ],
    },
  ];
  assert.deepEqual(
    timelineEntries(messages).map((e) => [e.tone, e.text]),
    [
      ["ok", "Memory: Kept: «tool» → «outil». Not kept: «x» → «y» (why)."],
      ["warn", "Memory: Nothing kept. Not kept: a style note (over 300 characters)."],
    ],
  );
});
