// @ts-check
// A document chosen for upload, without the DOM (API.md "Files", "File formats"): the formats the
// server reads, which files travel as their bytes (`contentBase64`: a .docx, decided by its name, or
// a file that is not UTF-8 text, such as a UTF-16 .strings), the upload's body, the size checked
// before anything is created, and a refused upload in words a person can act on.

/** The formats the server reads, as the start form names them, with their extensions. */
export const FORMATS = /** @type {const} */ ([
  ["Markdown or plain text", [".md", ".markdown", ".txt", ".text"]],
  ["Word", [".docx"]],
  ["HTML", [".html", ".htm"]],
  ["subtitles (SubRip, WebVTT)", [".srt", ".vtt"]],
  ["XLIFF", [".xlf", ".xliff"]],
  ["gettext PO", [".po", ".pot"]],
  ["i18next JSON", [".json"]],
  ["Android strings.xml", [".xml"]],
  ["Apple strings", [".strings", ".stringsdict", ".xcstrings"]],
  ["Flutter ARB", [".arb"]],
  ["Rails YAML", [".yml", ".yaml"]],
]);

/** Every extension the server reads by its format (anything else is read as plain text). */
export const EXTENSIONS = FORMATS.flatMap(([, extensions]) => extensions);

/** Formats whose files are binary: read as bytes and sent as `contentBase64`, never as text. */
const BINARY = [".docx"];

/** The most bytes a file may have: the upload's body is at most 5.5 MB, base64 adds a third. */
export const MAX_FILE_BYTES = 4_000_000;

/** True for a file whose format is binary (by its name). @param {string} name */
export function isBinaryName(name) {
  const lowered = name.trim().toLowerCase();
  return BINARY.some((ext) => lowered.endsWith(ext));
}

/** The bytes in base64, a chunk at a time (one call over a whole file would overflow the stack). @param {Uint8Array} bytes */
export function toBase64(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * A chosen file as the start form keeps it: `text` to show and edit (UTF-8 text), or `bytes` sent
 * as they are (a binary format, or text in another encoding, which the server decodes).
 * @typedef {{kind: "text", name: string, text: string} | {kind: "bytes", name: string, base64: string, size: number}} ChosenFile
 */

/** @param {string} name @param {ArrayBuffer} buffer @returns {ChosenFile} */
export function readDocument(name, buffer) {
  const bytes = new Uint8Array(buffer);
  if (!isBinaryName(name)) {
    try {
      return { kind: "text", name, text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
    } catch {
      /* not UTF-8 (UTF-16, Latin-1): the server reads its encoding */
    }
  }
  return { kind: "bytes", name, base64: toBase64(bytes), size: bytes.length };
}

/**
 * What is wrong with a document before anything is sent, or null.
 * @param {{name: string, text?: string, size?: number}} doc
 */
export function documentProblem({ name, text, size }) {
  const bytes = size ?? new TextEncoder().encode(text ?? "").length;
  if (bytes > MAX_FILE_BYTES) {
    const mb = (bytes / 1_000_000).toFixed(1);
    return `${name || "The document"} is ${mb} MB: a file can have at most 4 MB. Split it, then upload the parts.`;
  }
  if (text != null && isBinaryName(name)) {
    return `${name} is a Word document: upload the file itself (pasted text cannot be a .docx), or give the text another name, e.g. ${name.replace(/\.docx$/i, ".txt")}.`;
  }
  return null;
}

/** The upload's body (API.md `POST /api/sessions/{id}/files`). @param {string} name @param {{text: string} | {base64: string}} doc */
export function uploadBody(name, doc) {
  return "base64" in doc ? { name, contentBase64: doc.base64 } : { name, content: doc.text };
}

/** "34 KB", "1.2 MB". @param {number} bytes */
export function sizeText(bytes) {
  return bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1000))} KB`;
}

/**
 * A refused upload in plain words: what the server could not read, without the request's plumbing.
 * @param {string} name
 * @param {{status?: number, detail?: string, message?: string}} err
 */
export function uploadRefusal(name, err) {
  if (err.status === 413) return `${name} is too large to upload: a file can have at most 4 MB.`;
  if (err.status !== 422) return err.message || `${name} could not be uploaded.`;
  // The server says which file and format (`… (report.docx, read as docx)`, `docx: …`): the sentence names the file already.
  const said = (err.detail || "")
    .trim()
    .replace(/\s*\([^()]*, read as [\w-]+\)\s*$/, "")
    .replace(/^[\w-]+:\s+/, "");
  if (!said) return `${name} could not be read. Check that it is one of the formats listed, then try again.`;
  return `${name} could not be read: ${said}${/[.!?]$/.test(said) ? "" : "."}`;
}
