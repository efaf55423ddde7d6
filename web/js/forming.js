// @ts-check
// The streamed step on screen: the model's text and its proposals as they form, above the review
// cards, until the step's answer arrives (then the cards show the committed proposals as before).

import { $, h, num } from "./dom.js";
import { FormingAnswer } from "./sse.js";
import { state } from "./state.js";

/** @typedef {import("./sse.js").Delta} Delta */

/** @type {FormingAnswer | null} */
let answer = null;
let frame = 0;

/** The area, made on first use just above the cards (the page's markup need not know it). */
function area() {
  let el = document.getElementById("forming");
  if (!el) {
    el = h("section", { class: "forming", id: "forming", "aria-live": "polite", "aria-label": "The model's answer as it forms" });
    $("cards").before(el);
  }
  return el;
}

/** Show one more delta of the step under way (redrawn at most once a frame). @param {Delta} delta */
export function showDelta(delta) {
  answer ??= new FormingAnswer();
  if (!answer.apply(delta) || frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    render();
  });
}

/** The step has answered (or failed): the forming area goes. */
export function clearForming() {
  answer = null;
  if (frame) cancelAnimationFrame(frame);
  frame = 0;
  document.getElementById("forming")?.remove();
}

function render() {
  if (!answer || answer.empty) return;
  const el = area();
  const cards = $("cards");
  if (cards.firstElementChild?.classList.contains("placeholder")) cards.replaceChildren(); // "preparing…" is under way above
  const proposals = [...answer.proposals.values()];
  const count = proposals.length;
  el.replaceChildren(
    h(
      "p",
      { class: "forming-head" },
      h("span", { class: "spinner", "aria-hidden": "true" }),
      count ? ` The model is proposing ${count === 1 ? "a unit" : `${num.format(count)} units`}…` : " The model is answering…",
    ),
    ...(answer.text ? [h("p", { class: "forming-text", dir: "auto", text: answer.text })] : []),
    ...proposals.map((p, i) =>
      h(
        "article",
        { class: "card card-forming", "data-call-id": p.callId, "aria-label": `Proposal ${i + 1}, still forming` },
        h("div", { class: "card-head" }, h("h3", { class: "card-title", text: `Unit ${num.format(i + 1)}` }), h("span", { class: "card-where", text: "forming…" })),
        h(
          "div",
          { class: "card-pair" },
          h("div", { class: "card-col" }, h("div", { class: "col-label", text: "Source" }), h("div", { class: "card-text card-source", text: p.src_string })),
          h(
            "div",
            { class: "card-col" },
            h("div", { class: "col-label", text: "Proposal" }),
            h("div", { class: "card-text card-proposal", lang: state.lang, dir: "auto", text: p.translate_string }),
          ),
        ),
      ),
    ),
  );
}
