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

/** The key and note line of a resource string's card, or null. @param {CopilotRequest} req */
export function contextLine(req) {
  const c = req.context;
  if (!c) return null;
  return h(
    "p",
    { class: "card-context" },
    h("span", { class: "context-key", title: "The string's key in the file", text: c.key }),
    c.note ? h("span", { class: "context-note", title: "The developer's note", text: c.note }) : null,
  );
}

/** A plural proposal's forms, one row per category (the source's form beside it). @param {CopilotRequest} req */
export function formsView(req) {
  const forms = req.forms || formsOf(req.translate_string) || {};
  const source = req.plural?.source || {};
  return h(
    "dl",
    { class: "card-text card-proposal card-forms", lang: state.lang, dir: "auto" },
    (req.plural?.categories || Object.keys(forms)).flatMap((c) => [
      h("dt", { text: c, title: source[c] ? `Source (${c}): ${source[c]}` : null }),
      h("dd", { text: forms[c] ?? "" }),
    ]),
  );
}

/** A plural entry's source forms, one row per category the source has, or null for another string. @param {CopilotRequest} req */
export function sourceFormsView(req) {
  const source = req.plural?.source || {};
  const categories = Object.keys(source);
  if (categories.length < 2) return null;
  return h(
    "dl",
    { class: "card-text card-source card-forms" },
    categories.flatMap((c) => [h("dt", { text: c }), h("dd", { text: source[c] })]),
  );
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
