// @ts-check
// What the memory panel says about an entry, without the DOM: where it came from and its languages.

import { languageLabel } from "./memorylang.js";

/**
 * "learned from your edits" for a learned term (terms are learned from what the reviewer wrote in place
 * of a proposal), "learned from your reviews" for a learned style note (notes are learned from the reasons
 * given with a rejection or an edit), "imported", or "added by you".
 * @param {"glossary" | "style"} kind @param {string | undefined} origin
 */
export function originLabel(kind, origin) {
  if (origin === "learned") return kind === "glossary" ? "learned from your edits" : "learned from your reviews";
  return origin === "imported" ? "imported" : "added by you";
}

/** "French" for "auto>french" and "auto>fr". @param {string} pair */
export function languagesLabel(pair) {
  const target = (pair || "").split(">")[1] || "";
  if (!target || target === "*") return "all languages";
  if (target === "unknown") return "any language";
  return languageLabel(target);
}
