// The start form's document without the DOM (web/js/upload.js) and a resource string's context as a
// card shows it (web/js/entries.js): which files travel as bytes, the size checked before anything is
// created, a refusal in plain words, a PO key's context apart, and the context's other fields.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { contextFields, keyText } from "../../web/js/entries.js";
import { documentProblem, EXTENSIONS, isBinaryName, MAX_FILE_BYTES, readDocument, toBase64, uploadBody, uploadRefusal } from "../../web/js/upload.js";

const bytes = (...values) => new Uint8Array(values).buffer;

test("a .docx is read as its bytes, whatever they hold; UTF-8 text as text; other encodings as bytes", () => {
  const zip = bytes(0x50, 0x4b, 0x03, 0x04, 0x00, 0xff);
  const docx = readDocument("Report.DOCX", zip);
  assert.equal(docx.kind, "bytes");
  assert.equal(Buffer.from(docx.base64, "base64").toString("hex"), "504b030400ff");
  assert.equal(docx.size, 6);
  // Even a .docx whose bytes happen to be valid UTF-8 is not read as text: the name decides.
  assert.equal(readDocument("notes.docx", new TextEncoder().encode("plain").buffer).kind, "bytes");
  const text = readDocument("guide.md", new TextEncoder().encode("# Grüße 👋\n").buffer);
  assert.deepEqual(text, { kind: "text", name: "guide.md", text: "# Grüße 👋\n" });
  const utf16 = readDocument("Localizable.strings", bytes(0xff, 0xfe, 0x22, 0x00, 0x61, 0x00, 0x22, 0x00));
  assert.equal(utf16.kind, "bytes", "UTF-16 is sent as bytes: the server reads its encoding");
  const latin1 = readDocument("fr.po", bytes(0x6d, 0x73, 0x67, 0x69, 0x64, 0x20, 0xe9));
  assert.equal(latin1.kind, "bytes");
});

test("base64 of a large file is built in chunks and decodes to the same bytes", () => {
  const big = new Uint8Array(300_000).map((_, i) => (i * 7) % 256);
  assert.deepEqual(new Uint8Array(Buffer.from(toBase64(big), "base64")), big);
});

test("the upload's body names one of content and contentBase64, as the API takes it", () => {
  assert.deepEqual(uploadBody("a.docx", { base64: "UEs=" }), { name: "a.docx", contentBase64: "UEs=" });
  assert.deepEqual(uploadBody("a.md", { text: "Hi" }), { name: "a.md", content: "Hi" });
});

test("what is wrong with a document is said before anything is created", () => {
  assert.equal(documentProblem({ name: "a.md", text: "Hello" }), null);
  assert.equal(documentProblem({ name: "a.docx", size: 20_000 }), null);
  assert.match(documentProblem({ name: "big.docx", size: MAX_FILE_BYTES + 1 }), /at most 4 MB/);
  assert.match(documentProblem({ name: "a.md", text: "x".repeat(MAX_FILE_BYTES + 1) }), /at most 4 MB/);
  assert.match(documentProblem({ name: "pasted.docx", text: "Some text" }), /upload the file itself.*pasted\.txt/);
});

test("a refused upload reads as what could not be read, never as the request's plumbing", () => {
  const said = uploadRefusal("report.docx", { status: 422, detail: "docx: not a Word document (.docx files are ZIP archives; this is not one) (report.docx, read as docx)" });
  assert.equal(said, "report.docx could not be read: not a Word document (.docx files are ZIP archives; this is not one).");
  assert.equal(uploadRefusal("a.po", { status: 422, detail: "Line 3: unterminated string." }), "a.po could not be read: Line 3: unterminated string.");
  assert.doesNotMatch(said, /server rejected the request/);
  assert.match(uploadRefusal("a.po", { status: 422, detail: "" }), /could not be read\. Check that it is one of the formats listed/);
  assert.match(uploadRefusal("a.md", { status: 413 }), /too large/);
  assert.equal(uploadRefusal("a.md", { status: 503, message: "The translation model is busy or unavailable." }), "The translation model is busy or unavailable.");
});

test("the file picker and the start form list the extensions the server reads", () => {
  assert.ok(isBinaryName("x.docx") && !isBinaryName("x.md"));
  const html = readFileSync(new URL("../../web/index.html", import.meta.url), "utf8");
  const accept = /id="doc-file" accept="([^"]+)"/.exec(html)?.[1].split(",");
  assert.deepEqual(new Set(accept), new Set(EXTENSIONS), "index.html's accept is upload.js's list");
  for (const ext of [".docx", ".po", ".json", ".xml", ".strings", ".xcstrings", ".srt", ".vtt", ".html", ".yml", ".arb", ".xlf"]) {
    assert.ok(EXTENSIONS.includes(ext), ext);
  }
  assert.doesNotMatch(html, /Markdown or plain text: upload/, "the form no longer says only Markdown is read");
});

test("a PO key shows its context apart, and the context's other fields (such as #: references) by name", () => {
  assert.equal(keyText("menu\u0004Open"), "menu | Open");
  assert.equal(keyText("plain.key"), "plain.key");
  assert.doesNotMatch(keyText("a\u0004b"), /\u0004/);
  const rows = contextFields({ key: "k", note: "n", refs: ["src/inbox.c:42", "src/list.c:7"], codes: ["%d"], plural: [["one", "x"]], flags: "c-format" });
  assert.deepEqual(rows, [["Used in", "src/inbox.c:42, src/list.c:7"], ["Flags", "c-format"]]);
  assert.deepEqual(contextFields({ key: "k", note: null, refs: [] }), []);
});
