// @ts-check
// The start form's document: a file chosen, dropped or pasted, with the character count the server
// uses. A text file fills the text box (editable); a binary one (a .docx) or text in another encoding
// is kept as its bytes and shown as a file, since its text is read by the server (web/js/upload.js).
// Also what is missing before anything is sent, and the form emptied once its document is uploaded.

import { $, num } from "./dom.js";
import { codePoints } from "./text.js";
import { documentProblem, EXTENSIONS, FORMATS, readDocument, sizeText } from "./upload.js";

/** @typedef {{name: string, text: string} | {name: string, base64: string, size: number}} FormDocument */

/** The file whose bytes Start sends, while one is chosen (the text box is hidden then). @type {{base64: string, size: number} | null} */
let bytes = null;

/** What Start would send: the file's bytes when one is kept as such, else the text box's text. @returns {FormDocument} */
export function formDocument() {
  const name = $("doc-name").value.trim();
  return bytes ? { name, ...bytes } : { name, text: $("doc-text").value };
}

/**
 * The first thing the form lacks, as [the field to focus, what to say], or null.
 * @param {{language: boolean}} needs whether a target language is needed (a job checks its own)
 * @param {string} [language]
 * @returns {[string, string] | null}
 */
export function formProblem({ language: needed }, language = "") {
  const doc = formDocument();
  const empty = "text" in doc ? !doc.text.trim() : doc.size === 0;
  if (empty) return ["doc-text", "Add a document: upload a file or paste its text."];
  if (!doc.name) return ["doc-name", "Give the document a file name, e.g. guide.md."];
  const problem = documentProblem({ name: doc.name, ...("text" in doc ? { text: doc.text } : { size: doc.size }) });
  if (problem) return [bytes ? "doc-file" : "doc-text", problem];
  if (needed && !language) return ["target-lang", "Choose the language to translate into."];
  return null;
}

/** Say what the form lacks, at its field. @param {string} field @param {string} text */
export function showFormProblem(field, text) {
  $("start-error").textContent = text;
  $("start-error").hidden = false;
  const target = $(field);
  (target.hidden ? $("doc-file") : target).focus();
}

function showStats() {
  if (bytes) return;
  // Code points, as the server counts (an emoji is one character, not two UTF-16 units).
  const n = codePoints($("doc-text").value);
  $("doc-stats").textContent = n ? `${num.format(n)} ${n === 1 ? "character" : "characters"}` : "";
}

/** Show the kept file instead of the text box, or the text box again (null). @param {{name: string, size: number} | null} file */
function showKept(file) {
  $("doc-text").hidden = Boolean(file);
  $("doc-text-label").hidden = Boolean(file);
  $("doc-chosen").hidden = !file;
  if (!file) return;
  const word = /\.docx$/i.test(file.name) ? "Word document" : "file (not UTF-8 text: the server reads its encoding)";
  $("doc-chosen-name").textContent = file.name;
  $("doc-chosen-note").textContent = `${word}, ${sizeText(file.size)}. Its text is read when it is uploaded.`;
  $("doc-stats").textContent = "";
}

/** Read a chosen or dropped file into the form. @param {File | undefined} file */
async function load(file) {
  if (!file) return;
  const chosen = readDocument(file.name, await file.arrayBuffer());
  $("doc-name").value = file.name;
  if (chosen.kind === "text") {
    bytes = null;
    $("doc-text").value = chosen.text;
    showKept(null);
    showStats();
  } else {
    bytes = { base64: chosen.base64, size: chosen.size };
    $("doc-text").value = "";
    showKept({ name: file.name, size: chosen.size });
  }
  $("start-form").dispatchEvent(new Event("input", { bubbles: true })); // what was analysed may have changed
}

/** Back to the text box (the kept file is dropped). */
function dropKept() {
  bytes = null;
  $("doc-file").value = "";
  showKept(null);
  showStats();
}

/** Empty the form once its document is uploaded (the language stays): back home, it offers a new one. */
export function clearStartForm() {
  for (const id of ["doc-text", "doc-file", "instructions"]) $(id).value = "";
  $("doc-name").value = "document.md";
  dropKept();
}

/** The document fields: file, drop, paste, counts; `start` runs on submit or Ctrl+Enter. @param {() => void} start @param {() => void} onInput */
export function setupStartForm(start, onInput) {
  $("doc-file").setAttribute("accept", EXTENSIONS.join(","));
  $("doc-formats").textContent = FORMATS.map(([label]) => label).join(", ");
  const text = $("doc-text");
  $("doc-file").addEventListener("change", (/** @type {Event} */ e) => load(/** @type {HTMLInputElement} */ (e.target).files?.[0]));
  $("doc-chosen-clear").addEventListener("click", () => {
    dropKept();
    text.focus();
    onInput();
  });
  text.addEventListener("input", showStats);
  for (const zone of [text, $("doc-chosen")]) {
    zone.addEventListener("dragover", (/** @type {DragEvent} */ e) => {
      e.preventDefault();
      zone.classList.add("drop");
    });
    zone.addEventListener("dragleave", () => zone.classList.remove("drop"));
    zone.addEventListener("drop", (/** @type {DragEvent} */ e) => {
      e.preventDefault();
      zone.classList.remove("drop");
      load(e.dataTransfer?.files[0]);
    });
  }
  const form = $("start-form");
  form.addEventListener("submit", (/** @type {Event} */ e) => {
    e.preventDefault();
    start();
  });
  form.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      start();
    }
  });
  form.addEventListener("input", () => {
    $("start-error").hidden = true;
    onInput();
  });
}
