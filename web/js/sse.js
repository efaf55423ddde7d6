// @ts-check
// Server-Sent Events without the DOM: the parser (the WHATWG event-stream format), a reader over a
// fetch body, and what a streamed step has shown so far (API.md "The step", docs/api.md "Streaming").

/** @typedef {{event: string, data: string, id?: string}} SseEvent */
/** @typedef {{callId: string, src_string: string, translate_string: string}} FormingProposal */
/** @typedef {{text?: string, proposal?: FormingProposal}} Delta */

/** Whether this browser can read a response body as it arrives (else the client asks for plain JSON). */
export function canStream() {
  return typeof globalThis.ReadableStream === "function" && typeof globalThis.TextDecoder === "function";
}

/** Splits an event stream into events, chunk by chunk; a chunk may end anywhere (mid-line, mid-event). */
export class SseParser {
  constructor() {
    this.buffer = "";
    /** @type {string[]} */
    this.data = [];
    this.event = "";
    /** @type {string | undefined} */
    this.id = undefined;
  }

  /** The events completed by `chunk`. @param {string} chunk @returns {SseEvent[]} */
  push(chunk) {
    this.buffer += chunk;
    /** @type {SseEvent[]} */
    const events = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      // A lone "\r" at the end may be the first half of "\r\n": wait for the next chunk.
      if (!match || (match[0] === "\r" && match.index === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const done = this.line(line);
      if (done) events.push(done);
    }
    return events;
  }

  /**
   * The stream ended: a final lone "\r" ends its line; an event without its blank line is dropped,
   * as the format says. @returns {SseEvent[]}
   */
  end() {
    const done = this.buffer.endsWith("\r") ? this.line(this.buffer.slice(0, -1)) : null;
    this.buffer = "";
    this.data = [];
    this.event = "";
    return done ? [done] : [];
  }

  /** @param {string} line @returns {SseEvent | null} */
  line(line) {
    if (line === "") {
      if (!this.data.length) {
        this.event = "";
        return null;
      }
      /** @type {SseEvent} */
      const done = { event: this.event || "message", data: this.data.join("\n") };
      if (this.id !== undefined) done.id = this.id;
      this.data = [];
      this.event = "";
      return done;
    }
    if (line.startsWith(":")) return null; // a comment (a keep-alive)
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
    else if (field === "id" && !value.includes("\0")) this.id = value;
    return null;
  }
}

/**
 * Every event of a body as it arrives, in order.
 * @param {ReadableStream<Uint8Array>} body
 * @param {(event: SseEvent) => void} onEvent
 */
export async function readEvents(body, onEvent) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const event of parser.push(decoder.decode(value, { stream: true }))) onEvent(event);
    }
    for (const event of [...parser.push(decoder.decode()), ...parser.end()]) onEvent(event);
  } finally {
    reader.releaseLock();
  }
}

/** What a streamed step has shown so far: the model's text, and each Translate proposal as it forms. */
export class FormingAnswer {
  constructor() {
    this.text = "";
    /** @type {Map<string, FormingProposal>} in the order they began */
    this.proposals = new Map();
  }

  /** Take one delta in; whether it changed what is shown. @param {Delta} delta */
  apply(delta) {
    let changed = false;
    if (typeof delta.text === "string" && delta.text !== this.text) {
      this.text = delta.text;
      changed = true;
    }
    const p = delta.proposal;
    if (p && typeof p.callId === "string") {
      const before = this.proposals.get(p.callId);
      const next = { callId: p.callId, src_string: String(p.src_string ?? ""), translate_string: String(p.translate_string ?? "") };
      if (!before || before.src_string !== next.src_string || before.translate_string !== next.translate_string) {
        this.proposals.set(p.callId, next);
        changed = true;
      }
    }
    return changed;
  }

  get empty() {
    return !this.text && this.proposals.size === 0;
  }
}
