// @ts-check
// Keeping the current card in view: below the review's sticky header, whichever element scrolls
// (the review column on a wide window, the page on a narrow one).

import { $ } from "./dom.js";

/**
 * Scroll `el` (a card, a text box) fully into the part of the review below its sticky header: its top
 * there when it is above or too tall to fit, else its bottom in view; nothing when it is visible.
 * Computed rather than left to scrollIntoView, whose scroll padding does not account for a header that
 * is only stuck once the review has scrolled.
 * @param {HTMLElement} el @param {ScrollBehavior} behavior
 */
export function reveal(el, behavior) {
  const review = $("review");
  const head = $("review-head");
  const scrolls = getComputedStyle(review).overflowY !== "visible";
  const box = review.getBoundingClientRect();
  // Where the header's top sits once stuck: its `top` from the scrollport's padding edge (or the window's top).
  const stuck = (scrolls ? box.top + review.clientTop + parseFloat(getComputedStyle(review).paddingTop) : 0) + parseFloat(getComputedStyle(head).top);
  const free = stuck + head.offsetHeight;
  const end = scrolls ? box.top + review.clientTop + review.clientHeight : window.innerHeight;
  const r = el.getBoundingClientRect();
  // Room around it while there is some: a card that fits only without it still shows whole.
  const gap = Math.max(0, Math.min(GAP, (end - free - r.height) / 2));
  const top = free + gap;
  const bottom = end - gap;
  const by = r.top < top || r.height > bottom - top ? r.top - top : r.bottom > bottom ? r.bottom - bottom : 0;
  if (by) (scrolls ? review : window).scrollBy({ top: by, behavior });
}

/** The room (px) kept, when there is some, between a revealed card and the header or the review's bottom. */
const GAP = 10;
