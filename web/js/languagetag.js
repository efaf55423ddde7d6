// @ts-check
// A session's source language without the DOM: what the UI shows for it (API.md "Sessions":
// `sourceLanguage`, BCP 47 or null), checking a tag the user types, and changing it with
// PATCH /api/sessions/{id}, its refusals in words.

import { ApiError } from "./http.js";

/** @typedef {import("./types.js").SessionView} SessionView */

/** Languages offered first (any other BCP 47 tag can be typed). */
export const COMMON_SOURCES = ["en", "fr", "de", "es", "it", "pt", "nl", "sv", "pl", "cs", "ru", "uk", "tr", "ar", "he", "hi", "ja", "ko", "zh-Hans", "zh-Hant"];

/** "English" for "en", the tag itself when the runtime cannot name it. @param {string} tag @param {string} [ui] */
export function languageName(tag, ui = "en") {
  try {
    return new Intl.DisplayNames([ui], { type: "language" }).of(tag) || tag;
  } catch {
    return tag;
  }
}

/**
 * What the UI shows for a session's source language: the tag and its name when the session has one;
 * "auto" when it has none yet (null: detected from the first file's text) or the server does not say.
 * @param {Partial<SessionView> | null | undefined} view
 * @returns {{tag: string, label: string, known: boolean}}
 */
export function sourceLanguageOf(view) {
  const tag = typeof view?.sourceLanguage === "string" ? view.sourceLanguage.trim() : "";
  if (!tag) return { tag: "", label: "auto", known: false };
  return { tag, label: `${languageName(tag)} (${tag})`, known: true };
}

/**
 * A typed language as a canonical BCP 47 tag ("EN-us" → "en-US"; a name from the list, "English", and a
 * label as the field shows it, "English (en)", → "en"), or null when it is not one.
 * @param {string} text
 */
export function parseTag(text) {
  const labelled = /\(([^()]+)\)\s*$/.exec(text);
  const t = (labelled ? labelled[1] : text).trim().replace(/_/g, "-");
  if (!t) return null;
  const named = COMMON_SOURCES.find((c) => languageName(c).toLowerCase() === t.toLowerCase());
  if (named) return named;
  if (!/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(t)) return null;
  try {
    return Intl.getCanonicalLocales(t)[0] || null;
  } catch {
    return null;
  }
}

/**
 * Set the session's source language: the session as the server now has it, or why not in words.
 * @param {{updateSession: (id: string, body: {sourceLanguage: string}) => Promise<SessionView>}} api
 * @param {string} sessionId @param {string} text what the user typed
 * @returns {Promise<{ok: true, view: SessionView, tag: string} | {ok: false, message: string}>}
 */
export async function changeSourceLanguage(api, sessionId, text) {
  const tag = parseTag(text);
  if (!tag) return { ok: false, message: `“${text.trim()}” is not a language tag: use one like en, fr or pt-BR.` };
  try {
    const view = await api.updateSession(sessionId, { sourceLanguage: tag });
    return { ok: true, view, tag };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const words =
      err.status === 404
        ? "The source language was not changed: this session does not exist any more, or this server cannot change it yet."
        : err.status === 405
          ? "The source language was not changed: this server cannot change it yet."
          : err.status === 422
            ? `The source language “${tag}” was not accepted. ${err.message}`
            : `The source language was not changed. ${err.message}`;
    return { ok: false, message: words };
  }
}
