// A file's analysis before Start (GET …/analysis): its totals, a row a category, the cost estimate.

const num = new Intl.NumberFormat();

/** @typedef {{segments: number, words: number}} Band */
/** @typedef {{modelRequests: number, inputTokens: number, outputTokens: number, usd: number | null, model: string}} Estimate */
/** @typedef {{segments: number, words: number, chars: number, locked: number, repetitions: number, bands: Record<string, Band>, targetLanguage: string | null, estimate: Estimate}} Analysis */

/** The bands, best first (a list: an object would put its number-like keys "100", "101" in ascending order). */
const BAND_LABELS = /** @type {[string, string][]} */ ([
  ["101", "Context match (101%)"],
  ["100", "100% match"],
  ["95-99", "95–99%"],
  ["85-94", "85–94%"],
  ["75-84", "75–84%"],
  ["50-74", "50–74%"],
  ["none", "No match"],
]);

/**
 * What the panel shows, DOM-free: a summary line, the category rows and the estimate line.
 * @param {Analysis} a
 * @returns {{summary: string, rows: [string, string, string][], estimate: string}}
 */
export function analysisView(a) {
  /** @type {[string, string, string][]} */
  const rows = [
    ["Kept as is (code, URLs)", num.format(a.locked), ""],
    ["Repetitions", num.format(a.repetitions), ""],
  ];
  for (const [band, label] of BAND_LABELS) {
    const found = a.bands[band] ?? { segments: 0, words: 0 };
    rows.push([label, num.format(found.segments), num.format(found.words)]);
  }
  const e = a.estimate;
  const cost =
    e.usd === null ? "no price known for this model" : e.usd === 0 ? "at no cost" : `about $${e.usd.toFixed(e.usd < 1 ? 4 : 2)}`;
  const requests = `${num.format(e.modelRequests)} model ${e.modelRequests === 1 ? "request" : "requests"}`;
  return {
    summary: `${num.format(a.segments)} segments, ${num.format(a.words)} words, ${num.format(a.chars)} characters.`,
    rows,
    estimate:
      `Estimate with ${e.model}: ${requests}, ${num.format(e.inputTokens)} input and ` +
      `${num.format(e.outputTokens)} output tokens, ${cost}.`,
  };
}

/** @typedef {{name: string, default: boolean, price: {input: number, output: number} | null}} ConfiguredModel */

/**
 * A model's line in the start form's choice: its name, its price per million tokens, the default marked.
 * @param {ConfiguredModel} m
 */
export function modelLabel(m) {
  const dollars = (/** @type {number} */ x) => `$${x.toFixed(x < 1 ? 3 : 2)}`;
  const price = m.price === null ? "price unknown" : m.price.input === 0 && m.price.output === 0 ? "free" : `${dollars(m.price.input)} in, ${dollars(m.price.output)} out per million tokens`;
  return `${m.name} (${price})${m.default ? ", the default" : ""}`;
}

/**
 * The estimates of one file into several languages (a job), added up: the requests and tokens, and the
 * price unless a language's is unknown.
 * @param {Estimate[]} estimates
 * @returns {Estimate}
 */
export function totalEstimate(estimates) {
  const sum = (/** @type {(e: Estimate) => number} */ f) => estimates.reduce((n, e) => n + f(e), 0);
  const priced = estimates.every((e) => e.usd !== null);
  return {
    modelRequests: sum((e) => e.modelRequests),
    inputTokens: sum((e) => e.inputTokens),
    outputTokens: sum((e) => e.outputTokens),
    usd: priced ? Math.round(sum((e) => e.usd ?? 0) * 1e4) / 1e4 : null,
    model: estimates[0]?.model ?? "",
  };
}
