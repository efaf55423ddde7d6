// @ts-check
// A resource file's strings on the review card: the key and the developer's note, and a plural
// entry's forms (one field per CLDR category of the target language, API.md CopilotRequest `plural`).
// A plural proposal travels as its forms' JSON text (`asText`), so verdicts, diffs and the kept
// verdicts treat it as any text; the forms are read back from it.

import { autosize, h } from "./dom.js";
import { state } from "./state.js";

/** @typedef {import("./types.js").CopilotRequest} CopilotRequest */

/** A request as the cards keep it: a plural entry's forms also as one JSON text. @param {CopilotRequest} req @returns {CopilotRequest} */
export function asText(req) {
  const value = /** @type {unknown} */ (req.translate_string);
  if (value && typeof value === "object") {
    const forms = /** @type {Record<string, string>} */ (value);
    return { ...req, forms, translate_string: JSON.stringify(forms) };
  }
  return req;
}

/** The forms a plural text holds (its JSON object), or null. @param {string} text @returns {Record<string, string> | null} */
export function formsOf(text) {
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/** gettext's separator of a message's context and its msgid in a key (`msgctxt` + EOT + `msgid`). */
const CONTEXT_SEPARATOR = "\u0004";

/** A key as a person reads it: a PO key's context and message apart (`menu | Open`), never a control character. @param {string} key */
export function keyText(key) {
  return key.split(CONTEXT_SEPARATOR).join(" | ");
}

/** The fields a context line shows by name, besides the key and the note (any other the server adds is shown too). */
const FIELD_LABELS = /** @type {Record<string, string>} */ ({ refs: "Used in", references: "Used in", flags: "Flags", comment: "Comment" });
/** Fields that are not for a person to read here. */
const HIDDEN_FIELDS = new Set(["key", "note", "codes", "plural", "argument"]);

/**
 * The context's other fields as [label, text] rows: `refs` (a PO file's `#:` source references) and
 * whatever else the server gives, a list joined by commas, a number or text as it is.
 * @param {Record<string, unknown>} context
 * @returns {[string, string][]}
 */
export function contextFields(context) {
  /** @type {[string, string][]} */
  const rows = [];
  for (const [name, value] of Object.entries(context)) {
    if (HIDDEN_FIELDS.has(name) || value == null || value === "") continue;
    const items = Array.isArray(value) ? value.filter((v) => typeof v === "string" || typeof v === "number") : [value];
    if (!items.length || items.some((v) => typeof v === "object")) continue;
    rows.push([FIELD_LABELS[name] ?? name, items.join(", ")]);
  }
  return rows;
}

/** The key, note and other context of a resource string's card, or null. @param {CopilotRequest} req */
export function contextLine(req) {
  const c = req.context;
  if (!c) return null;
  const [context, message] = c.key.includes(CONTEXT_SEPARATOR) ? c.key.split(CONTEXT_SEPARATOR, 2) : [null, c.key];
  return h(
    "p",
    { class: "card-context" },
    h(
      "span",
      { class: "context-key", title: context != null ? `The message's context (msgctxt) “${context}”, then its text` : "The string's key in the file" },
      context != null ? [h("span", { class: "context-msgctxt", text: context }), h("span", { class: "context-sep", "aria-hidden": "true", text: " | " }), message] : message,
    ),
    c.note ? h("span", { class: "context-note", title: "The developer's note", text: c.note }) : null,
    contextFields(/** @type {Record<string, unknown>} */ (c)).map(([label, text]) =>
      h("span", { class: "context-field", "data-label": label, title: label }, h("span", { class: "context-label", text: `${label}: ` }), text),
    ),
  );
}

/**
 * A plural proposal's forms, one row per category (the source's form beside it), each form's text as
 * `pieces` gives it (its codes as chips).
 * @param {CopilotRequest} req @param {(text: string) => (string | Node)[]} [pieces]
 */
export function formsView(req, pieces = (text) => [text]) {
  const forms = req.forms || formsOf(req.translate_string) || {};
  const source = req.plural?.source || {};
  return h(
    "dl",
    { class: "card-text card-proposal card-forms", lang: state.lang, dir: "auto" },
    (req.plural?.categories || Object.keys(forms)).flatMap((c) => [
      h("dt", { text: c, title: source[c] ? `Source (${c}): ${source[c]}` : null }),
      h("dd", {}, pieces(forms[c] ?? "")),
    ]),
  );
}

/**
 * A plural entry's source forms, one row per category the source has (even one), each form's text as
 * `pieces` gives it (the glossary's terms marked), or null for another string.
 * @param {CopilotRequest} req @param {(text: string) => (string | Node)[]} [pieces]
 */
export function sourceFormsView(req, pieces = (text) => [text]) {
  const source = req.plural?.source || {};
  const categories = Object.keys(source);
  if (!categories.length) return null;
  return h(
    "dl",
    { class: "card-text card-source card-forms" },
    categories.flatMap((c) => [h("dt", { text: c }), h("dd", {}, pieces(source[c]))]),
  );
}

/**
 * The source a box of `req`'s editor is written from: a plural form's (its category's, else `other`),
 * or the whole source. @param {CopilotRequest} req @param {string} [category]
 */
export function sourceFor(req, category) {
  return (category && (req.plural?.source?.[category] ?? req.plural?.source?.other)) || req.src_string;
}

/** One labelled text box per plural category, for `id`'s editor. @param {string} id @param {CopilotRequest} req */
export function formsEditor(id, req) {
  return h(
    "div",
    { class: "forms-editor", role: "group", "aria-label": "Plural forms" },
    (req.plural?.categories || []).flatMap((c) => [
      h("label", { for: `${id}-form-${c}`, text: c }),
      h("textarea", { id: `${id}-form-${c}`, class: "edit-form", "data-category": c, lang: state.lang, dir: "auto", rows: "1" }),
    ]),
  );
}

/** Fill a card's form boxes from a plural text. @param {HTMLElement} card @param {string} text */
export function fillForms(card, text) {
  const forms = formsOf(text) || {};
  for (const box of /** @type {NodeListOf<HTMLTextAreaElement>} */ (card.querySelectorAll(".edit-form"))) {
    box.value = forms[box.dataset.category || ""] ?? "";
    autosize(box);
  }
}

/** The text a card's editor holds: its form boxes as their JSON text for a plural entry, else its text box. @param {HTMLElement} card @param {CopilotRequest} req */
export function editedText(card, req) {
  if (req.plural) {
    /** @type {Record<string, string>} */
    const forms = {};
    for (const box of /** @type {NodeListOf<HTMLTextAreaElement>} */ (card.querySelectorAll(".edit-form"))) {
      forms[box.dataset.category || ""] = box.value;
    }
    return JSON.stringify(forms);
  }
  return /** @type {HTMLTextAreaElement} */ (card.querySelector(".edit-text")).value;
}

/** True when the editor's text (or one of its forms) is blank. @param {string} text @param {CopilotRequest} req */
export function blankEdit(text, req) {
  if (!req.plural) return !text.trim();
  return Object.values(formsOf(text) || {}).some((v) => !v.trim());
}

/** A resource string's target as a list shows it: a plural entry's forms as `one: … · few: …`. @param {{context?: unknown, target: string | null}} seg */
export function listedTarget(seg) {
  const forms = seg.context && seg.target ? formsOf(seg.target) : null;
  if (!forms || !Object.values(forms).every((v) => typeof v === "string")) return seg.target || "";
  return Object.entries(forms).map(([c, v]) => `${c}: ${v}`).join(" · ");
}

/** A written plural entry's forms (its JSON text) as one row per category, or null for other text. @param {string | null | undefined} text */
export function writtenFormsView(text) {
  const forms = text ? formsOf(text) : null;
  if (!forms || !Object.values(forms).every((v) => typeof v === "string")) return null;
  return h("dl", { class: "card-forms" }, Object.entries(forms).flatMap(([c, v]) => [h("dt", { text: c }), h("dd", { text: v })]));
}
