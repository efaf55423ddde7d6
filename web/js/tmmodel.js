// @ts-check
// The translation memory's list in the memory panel without the DOM (GET …/memory/tm: one language,
// most recently changed first, paged by `nextCursor`): pages joined, an edit or a deletion applied to
// what is shown, what an entry's line says, and an edit checked before it is sent.

/** @typedef {{id: string, source: string, target: string, language: string, key?: string | null, origin?: string, updatedAt?: string | null}} TmEntry */
/** @typedef {{entries: TmEntry[], nextCursor: string | null}} TmPage */

/** How many entries a page asks for (the server allows up to 200). */
export const PAGE_SIZE = 50;

/** The longest translation an entry keeps, as the memory's import does. */
export const MAX_TARGET = 5000;

/**
 * The entries shown after one more page: the page's appended, an entry already shown (an entry
 * changed while paging moves to the first page) kept once, where it was.
 * @param {TmEntry[]} shown @param {TmPage} page @returns {TmEntry[]}
 */
export function appendPage(shown, page) {
  const ids = new Set(shown.map((e) => e.id));
  return [...shown, ...(page.entries || []).filter((e) => e && typeof e.id === "string" && !ids.has(e.id))];
}

/** The list with `entry` in place of the one with its id. @param {TmEntry[]} shown @param {TmEntry} entry */
export function replaceEntry(shown, entry) {
  return shown.map((e) => (e.id === entry.id ? entry : e));
}

/** The list without the entry `id`. @param {TmEntry[]} shown @param {string} id */
export function removeEntry(shown, id) {
  return shown.filter((e) => e.id !== id);
}

/** @type {Record<string, string>} how an entry came into the memory (docs/api.md "Memory") */
const ORIGIN = {
  approved: "approved",
  refined: "edited in review",
  revised: "revised",
  imported: "imported",
};

/** When an entry was last changed, as a date ("7 Dec 2026"), or "" when unknown. @param {string | null | undefined} iso */
export function changedOn(iso) {
  const t = iso ? Date.parse(iso) : NaN;
  if (!Number.isFinite(t)) return "";
  return new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" }).format(t);
}

/** How an entry came into the memory, in words ("edited in review" for `refined`). @param {string | null | undefined} origin */
export function originText(origin) {
  return origin ? ORIGIN[origin] || origin : "";
}

/** What an entry's line says under its texts: its key, origin and date. @param {TmEntry} entry */
export function entryMeta(entry) {
  return [entry.key ? `key ${entry.key}` : "", originText(entry.origin), changedOn(entry.updatedAt)].filter(Boolean).join(" · ");
}

/**
 * What is wrong with an edited translation, or "" when it may be sent: not blank, at most MAX_TARGET
 * characters (code points, as the server counts).
 * @param {string} text
 */
export function editProblem(text) {
  if (!text.trim()) return "The translation cannot be empty: delete the entry instead.";
  if (Array.from(text).length > MAX_TARGET) return `The translation is longer than ${MAX_TARGET.toLocaleString("en")} characters.`;
  return "";
}

/** What the list says when it has nothing. @param {string} q the filter typed @param {string} language its label */
export function emptyText(q, language) {
  return q.trim()
    ? `No entry into ${language} holds “${q.trim()}”.`
    : `No translation memory into ${language} yet. Approved translations and imported TMX files go here.`;
}
