// @ts-check
// Locked codes shown as chips (codes.js finds them): a card's source and proposal with each code one
// atomic chip, the two ends of a pair in the same colour, and the line under an edit box that says
// which codes are missing or extra.

import { h } from "./dom.js";
import { chipLabel, codeBalance, tokenize } from "./codes.js";
import { formsOf, sourceFor } from "./entries.js";
import { plural } from "./text.js";

/** @typedef {import("./codes.js").Token} Token */

const PAIR_COLOURS = 6;

/** One code as a chip. @param {Pick<Token, "code" | "kind" | "pair" | "hue">} t */
export function chip(t) {
  const paired = t.pair != null;
  const what = t.kind === "open" && paired ? "opens a pair" : t.kind === "close" && paired ? "closes a pair" : "a locked code";
  return h("span", {
    class: `code-chip code-${t.kind}${paired ? ` code-pair-${/** @type {number} */ (t.hue ?? t.pair) % PAIR_COLOURS}` : ""}`,
    "data-code": t.code,
    "data-pair": paired ? t.pair : null,
    title: `${t.code}: ${what}; keep it in the translation`,
    text: chipLabel(t.code),
  });
}

/**
 * `text` with its codes as chips and the text between them as `rest` gives it (the glossary's terms
 * marked, say).
 * @param {string} text @param {readonly string[] | null | undefined} codes @param {(text: string) => (string | Node)[]} [rest]
 * @returns {(string | Node)[]}
 */
export function chipPieces(text, codes, rest = (t) => [t]) {
  const tokens = codes?.length ? tokenize(text, codes) : [];
  if (!tokens.length) return rest(text);
  /** @type {(string | Node)[]} */
  const out = [];
  let at = 0;
  for (const t of tokens) {
    if (t.start > at) out.push(...rest(text.slice(at, t.start)));
    out.push(chip(t));
    at = t.end;
  }
  if (at < text.length) out.push(...rest(text.slice(at)));
  return out;
}

/** @param {{code: string, n: number}[]} list */
const listed = (list) => list.flatMap(({ code, n }) => [chip({ code, kind: "single", pair: null, hue: null }), n > 1 ? `×${n} ` : " "]);

/** A missing code's chip: a click puts it at the caret (chipedit.js). @param {{code: string, n: number}[]} list */
const insertable = (list) =>
  listed(list).map((c) => {
    if (typeof c !== "string") c.title = `${c.dataset.code}: missing; click to insert it at the caret (F9: the next missing one)`;
    return c;
  });

/**
 * Fill `line` with what `text` does to the codes of `source`: all in place, or those missing and those
 * extra. Returns whether they are off.
 * @param {HTMLElement} line @param {string} source @param {string} text @param {readonly string[]} codes
 */
export function showBalance(line, source, text, codes) {
  const { missing, extra } = codeBalance(source, text, codes);
  const off = missing.length > 0 || extra.length > 0;
  // The line is read out when it changes: left alone while the codes stay as they were.
  const sig = JSON.stringify([missing, extra]);
  if (line.dataset.sig === sig && !line.querySelector(".codes-armed")) return off;
  line.dataset.sig = sig;
  line.dataset.state = off ? "off" : "ok";
  line.replaceChildren(
    ...(off
      ? [
          missing.length ? h("span", { class: "codes-missing" }, "Missing: ", ...insertable(missing)) : null,
          extra.length ? h("span", { class: "codes-extra" }, "Extra: ", ...listed(extra)) : null,
        ].filter((x) => x !== null)
      : [`All ${plural(tokenize(source, codes).length, "code", "codes")} in place`]),
  );
  return off;
}

/** A card's edit's missing and extra codes in words (a plural entry's, form by form). @param {import("./types.js").CopilotRequest} req @param {string} text */
export function editBalanceText(req, text) {
  const codes = req.context?.codes || [];
  if (!req.plural) return balanceText(req.src_string, text, codes);
  return Object.entries(formsOf(text) || {})
    .map(([c, t]) => [c, balanceText(sourceFor(req, c), t, codes)])
    .filter(([, said]) => said)
    .map(([c, said]) => `${c}: ${said}`)
    .join("; ");
}

/** Missing and extra codes in words, for a question before a verdict. @param {string} source @param {string} text @param {readonly string[]} codes */
export function balanceText(source, text, codes) {
  const { missing, extra } = codeBalance(source, text, codes);
  const say = (/** @type {{code: string, n: number}[]} */ l) => l.map(({ code, n }) => (n > 1 ? `${code} ×${n}` : code)).join(", ");
  return [missing.length ? `missing ${say(missing)}` : "", extra.length ? `extra ${say(extra)}` : ""].filter(Boolean).join("; ");
}
