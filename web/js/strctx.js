// @ts-check
// A string's wider context on its card, loaded when opened: the strings before and after it in the
// file, and the same key as other languages of the project (or of the owner) have it. A server without
// that route (404) leaves the box saying there is nothing more, quietly.

import { api, ApiError } from "./api.js";
import { h } from "./dom.js";
import { state } from "./state.js";
import { keyText } from "./entries.js";

/**
 * @typedef {{id: string, key?: string | null, source: string, target?: string | null, status?: string}} Neighbour
 * @typedef {{key?: string | null, before?: Neighbour[], after?: Neighbour[], otherLanguages?: {language: string, target?: string | null, status?: string}[]}} StringContext
 */

/** @param {Neighbour} n @param {string} cls */
const neighbour = (n, cls) =>
  h(
    "li",
    { class: `ctx-row ${cls}`, "data-segment": n.id },
    n.key != null ? h("span", { class: "ctx-key", text: keyText(n.key) }) : null,
    h("span", { class: "ctx-source", text: n.source }),
    h("span", { class: "ctx-target", lang: state.lang, dir: "auto", text: n.target || "—", title: n.status || null }),
  );

/** The loaded context as lists. @param {StringContext} c @param {string} segmentId @param {string} source */
function view(c, segmentId, source) {
  const parts = [];
  const before = c.before || [];
  const after = c.after || [];
  if (before.length || after.length) {
    parts.push(h("h4", { text: "Around it in the file" }));
    parts.push(
      h(
        "ol",
        { class: "ctx-list ctx-neighbours" },
        before.map((n) => neighbour(n, "ctx-before")),
        neighbour({ id: segmentId, key: c.key, source, target: "this string" }, "ctx-this"),
        after.map((n) => neighbour(n, "ctx-after")),
      ),
    );
  }
  const others = c.otherLanguages || [];
  if (others.length) {
    parts.push(h("h4", { text: "In other languages" }));
    parts.push(
      h(
        "ul",
        { class: "ctx-list ctx-languages" },
        others.map((o) =>
          h("li", { class: "ctx-row", "data-language": o.language }, h("span", { class: "ctx-lang", text: o.language }), h("span", { class: "ctx-target", lang: o.language, dir: "auto", text: o.target || "—", title: o.status || null })),
        ),
      ),
    );
  }
  return parts.length ? parts : [h("p", { class: "hint", text: "No neighbours, and no other language has this key yet." })];
}

/**
 * A closed "Context" box for segment `segmentId` of file `fileId`, loading when first opened.
 * @param {string} fileId @param {string} segmentId @param {string} source the string's source, to show between its neighbours
 */
export function contextBox(fileId, segmentId, source) {
  const out = h("div", { class: "ctx-body", "aria-live": "polite" });
  const box = /** @type {HTMLDetailsElement} */ (h("details", { class: "card-strctx" }, h("summary", { text: "Context" }), out));
  let loaded = false;
  box.addEventListener("toggle", async () => {
    if (!box.open || loaded || !state.sessionId) return;
    loaded = true;
    out.replaceChildren(h("p", { class: "hint", text: "Loading…" }));
    try {
      out.replaceChildren(...view(await api.stringContext(state.sessionId, fileId, segmentId), segmentId, source));
    } catch (err) {
      const gone = err instanceof ApiError && err.status === 404;
      out.replaceChildren(h("p", { class: "hint", text: gone ? "No more context for this string." : `The context could not be loaded: ${/** @type {Error} */ (err).message}` }));
      if (!gone) loaded = false;
    }
  });
  return box;
}
