// @ts-check
// The page's state, in one typed object. What a module triggers in another it is given at its setup
// (app.js wires them), never through a shared registry.

/** @typedef {import("./types.js").FileInfo} FileInfo */
/** @typedef {import("./types.js").WrittenUnit} WrittenUnit */
/** @typedef {import("./types.js").Segment} Segment */
/** @typedef {import("./review.js").Item} Item */

export const state = {
  /** @type {"home" | "session" | "job" | null} */
  view: null,
  /** @type {string | null} */
  sessionId: null,
  /** @type {string | null} */
  title: null,
  /** @type {string | null} BCP 47 tag of the target language, when known */
  lang: null,
  /** @type {FileInfo[]} */
  files: [],
  /** @type {string | null} */
  activeFileId: null,
  /** @type {Map<string, string>} fileId → source text */
  sources: new Map(),
  /** @type {Map<string, WrittenUnit[]>} */
  units: new Map(),
  /** @type {Map<string, string>} fileId → assembled translation */
  translations: new Map(),
  /** @type {Set<string>} callIds written by the latest verdicts (highlighted in the preview) */
  fresh: new Set(),
  /** @type {Item[]} */
  batch: [],
  current: 0,
  busy: false,
  /** @type {AbortController | null} */
  controller: null,
  /** @type {"agent" | "user" | null} */
  actor: null,
  /** @type {any[]} */
  messages: [],
  messageCount: 0,
  messagesComplete: true,
  /** @type {Set<string>} user inputs shown locally, not (yet) echoed by the server */
  localInputs: new Set(),
  /** @type {string[]} inputs queued behind pending reviews */
  queued: [],
  /** @type {{body: import("./types.js").NextBody, key: string} | null} what Continue sends after Stop */
  stoppedCall: null,
  loadToken: 0,
  /** @type {{source: string, target: string, languages?: string, kind?: string}[]} the owner's glossary for this session's language */
  glossary: [],
  /**
   * The session's project and what the caller does there (teams.js roleIn): `role` null in one's
   * own session (everything allowed); `review` the project's "single" or "double"; `drove`: a step of
   * this page committed (the caller holds the session, and lets it go on leaving).
   * @type {{project: string | null, name: string | null, role: import("./types.js").Role | null, languages: string[], review: string | null, drove?: boolean}}
   */
  team: { project: null, name: null, role: null, languages: ["*"], review: null },
  /** @type {{segments: Segment[], server: boolean, fileId: string | null}} the workbench list */
  segments: { segments: [], server: true, fileId: null },
};
