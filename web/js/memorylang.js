// @ts-check
// The memory panel's language pair without the DOM: which target language an entry's `languages`
// ("auto>french", "auto>fr") names, whether it covers the language chosen, and the languages to offer.
// A language is compared by name, so a tag and its English name are one language ("fr", "fr-CA" and
// "French"), as the server's own matching does (docs/api.md "Memory").

/** The filter's value for every language. */
export const ALL = "*";

/** The filter's value that asks for a language typed. */
export const OTHER = "?";

/** The target language named in "Translate x into French.". @param {string | null} title */
export function languageFromTitle(title) {
  const m = /\binto (.+?)\.(?:\s|$)/.exec(title || "");
  return m ? m[1] : null;
}

/** "fr" for "fr-CA", null for what is not shaped as a BCP 47 tag ("french"). @param {string} text */
function primaryTag(text) {
  const m = /^([a-z]{2,3})(?:-[a-z0-9]{1,8})*$/i.exec(text.trim().replace(/_/g, "-"));
  return m ? m[1].toLowerCase() : null;
}

/** The English name of a primary tag, or null when the runtime does not know it. @param {string} tag */
function tagName(tag) {
  try {
    const name = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" }).of(tag);
    return name ? name.toLowerCase() : null;
  } catch {
    return null;
  }
}

/**
 * What two spellings of one language share: "french" for "fr", "fr-FR", "French" and "french"; "" for
 * none, every language ("*") or an unknown one.
 * @param {string | null | undefined} language
 */
export function languageKey(language) {
  const text = (language || "").trim().toLowerCase();
  if (!text || text === ALL || text === "unknown" || text === "all") return "";
  const tag = primaryTag(text);
  return (tag && tagName(tag)) || text;
}

/** The target of a pair ("french" for "auto>french"; a lone name is the target). @param {string | null | undefined} languages */
export function pairTarget(languages) {
  const text = (languages || "").trim();
  if (!text) return ALL;
  return (text.includes(">") ? text.split(">")[1] : text).trim() || ALL;
}

/**
 * Whether an entry for `languages` belongs under the filter `language`: every entry does for "all"
 * (or no language); an entry for every language ("auto>*") or an unknown one under any filter; else
 * when the targets are one language.
 * @param {string | null | undefined} languages @param {string | null | undefined} language
 */
export function coversLanguage(languages, language) {
  const wanted = languageKey(language);
  const entry = languageKey(pairTarget(languages));
  return !wanted || !entry || entry === wanted;
}

/**
 * The entries under the filter `language` (the server's own filtering, done again when it does not).
 * @template {{languages?: string}} T @param {T[]} entries @param {string | null | undefined} language @returns {T[]}
 */
export function filterByLanguage(entries, language) {
  return entries.filter((e) => coversLanguage(e.languages, language));
}

/** "French" for "fr", "french" or "auto>french"; "All languages" for every one. @param {string | null | undefined} language */
export function languageLabel(language) {
  const key = languageKey(pairTarget(language));
  if (!key) return "All languages";
  return key.replace(/(^|[\s(-])\p{L}/gu, (m) => m.toUpperCase());
}

/**
 * The filter's choices: the session's language first (as it was given: a tag is what the server is
 * asked), then each other target language the entries name, by label, then every language, then one
 * to type. Each language once.
 * @param {string | null} sessionLanguage @param {Iterable<string>} seen targets or pairs of entries and the project's languages
 * @returns {{value: string, label: string}[]}
 */
export function languageChoices(sessionLanguage, seen) {
  /** @type {Map<string, {value: string, label: string}>} */
  const byKey = new Map();
  const first = languageKey(sessionLanguage);
  if (first && sessionLanguage) byKey.set(first, { value: sessionLanguage, label: `${languageLabel(sessionLanguage)} (this session)` });
  const others = [];
  for (const item of seen) {
    const target = pairTarget(item);
    const key = languageKey(target);
    if (!key || byKey.has(key) || others.some((o) => o.key === key)) continue;
    others.push({ key, value: target, label: languageLabel(target) });
  }
  others.sort((a, b) => a.label.localeCompare(b.label));
  for (const o of others) byKey.set(o.key, { value: o.value, label: o.label });
  return [...byKey.values(), { value: ALL, label: "All languages" }, { value: OTHER, label: "Another language…" }];
}
