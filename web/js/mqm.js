// @ts-check
// MQM issues (docs/api.md "MQM issues"): the error types a reviewer may name on an edit, a rejection or a
// revision, and their severity; the picker every one of those forms shows. The lists are the server's
// (agent_core/mqm.py), in MQM Core's order; tests/test_web_mqm.py checks they agree.

import { h } from "./dom.js";

/** @typedef {{category: string, severity: string}} MqmIssue */

export const MQM_CATEGORIES = [
  "Terminology",
  "Accuracy",
  "Accuracy/Mistranslation",
  "Accuracy/Omission",
  "Accuracy/Addition",
  "Accuracy/Untranslated",
  "Linguistic conventions",
  "Linguistic conventions/Grammar",
  "Linguistic conventions/Spelling",
  "Linguistic conventions/Punctuation",
  "Style",
  "Locale conventions",
  "Audience appropriateness",
  "Design and markup",
];

export const MQM_SEVERITIES = ["minor", "major", "critical"];

/** A category as a person reads it: "Accuracy › Omission". @param {string} category */
export const categoryLabel = (category) => category.replace("/", " › ");

/** "Accuracy › Omission (major)". @param {MqmIssue} issue */
export const issueText = (issue) => `${categoryLabel(issue.category)} (${issue.severity})`;

/**
 * The picker: an error type ("No MQM issue" first) and a severity, in one labelled group.
 * @param {string} id a prefix for the controls' ids
 * @param {MqmIssue | null | undefined} [chosen]
 */
export function issuePicker(id, chosen) {
  const category = h(
    "select",
    { id: `${id}-mqm-category`, class: "mqm-category" },
    h("option", { value: "", text: "No MQM issue" }),
    MQM_CATEGORIES.map((c) => h("option", { value: c, text: categoryLabel(c) })),
  );
  const severity = h(
    "select",
    { id: `${id}-mqm-severity`, class: "mqm-severity", "aria-label": "Severity" },
    MQM_SEVERITIES.map((s) => h("option", { value: s, text: s })),
  );
  const picker = h(
    "div",
    { class: "mqm-picker", role: "group", "aria-label": "MQM issue (optional)" },
    h("label", { for: `${id}-mqm-category`, text: "Issue" }),
    category,
    severity,
  );
  setIssue(picker, chosen);
  const sync = () => {
    /** @type {HTMLSelectElement} */ (severity).disabled = !(/** @type {HTMLSelectElement} */ (category).value);
  };
  category.addEventListener("change", sync);
  sync();
  return picker;
}

/** Show `issue` (or none) in a picker. @param {Element} picker @param {MqmIssue | null | undefined} issue */
export function setIssue(picker, issue) {
  const category = /** @type {HTMLSelectElement} */ (picker.querySelector(".mqm-category"));
  const severity = /** @type {HTMLSelectElement} */ (picker.querySelector(".mqm-severity"));
  category.value = issue?.category ?? "";
  severity.value = issue?.severity ?? "minor";
  severity.disabled = !category.value;
}

/** The issue a picker shows, or undefined for none. @param {Element | null} picker @returns {MqmIssue | undefined} */
export function pickedIssue(picker) {
  const category = /** @type {HTMLSelectElement | null} */ (picker?.querySelector(".mqm-category"));
  const severity = /** @type {HTMLSelectElement | null} */ (picker?.querySelector(".mqm-severity"));
  if (!category?.value || !severity) return undefined;
  return { category: category.value, severity: severity.value };
}
