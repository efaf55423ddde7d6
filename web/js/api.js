// The HTTP API (API.md), with every path relative to the page so the UI works under a stage prefix.

import { bearer, signedOut, signInRequired } from "./auth.js";

const BASE = new URL("api/", document.baseURI);

/** An API or network failure, in words a person can act on. */
export class ApiError extends Error {
  constructor(message, { status = 0, retryAfter = null, aborted = false } = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status; // 0: no answer (network error or aborted)
    this.retryAfter = retryAfter; // seconds, when the server said
    this.aborted = aborted;
  }

  /** 409, 503, 504 and network errors are worth a retry. */
  get retryable() {
    return !this.aborted && (this.status === 0 || this.status === 409 || this.status === 503 || this.status === 504);
  }
}

/** A fresh Idempotency-Key (crypto.randomUUID needs a secure context; getRandomValues does not). */
export function newKey() {
  if (crypto.randomUUID && window.isSecureContext) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function apiUrl(path) {
  return new URL(path.replace(/^\//, ""), BASE).href;
}

const PLAIN = {
  400: "The server could not read the request.",
  401: "You are signed out. Sign in again, then retry.",
  404: "This session or file no longer exists.",
  409: "The session changed in the meantime (another tab or a lost answer).",
  413: "The document is too large to upload.",
  422: "The server rejected the request.",
  503: "The translation model is busy or unavailable.",
  504: "The step took too long and was cancelled; nothing was changed.",
};

async function request(method, path, { body, signal, key, accept = "application/json", raw = false } = {}) {
  const headers = { Accept: accept };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (key) headers["Idempotency-Key"] = key;
  if (signInRequired()) {
    const token = await bearer();
    if (!token) throw new ApiError(PLAIN[401], { status: 401 });
    headers.Authorization = `Bearer ${token}`;
  }
  let response;
  try {
    response = await fetch(apiUrl(path), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch (err) {
    if (err && err.name === "AbortError") throw new ApiError("Stopped.", { aborted: true });
    throw new ApiError("Could not reach the server. Check the connection, then retry.");
  }
  if (response.ok) {
    if (raw) return response;
    if (response.status === 204) return null;
    const type = response.headers.get("Content-Type") || "";
    return type.includes("json") ? response.json() : response.text();
  }
  let detail = "";
  try {
    const data = await response.json();
    detail = typeof data.error === "string" ? data.error : "";
  } catch {
    /* not JSON: keep the generic words */
  }
  if (response.status === 401) signedOut();
  const retryAfter = Number(response.headers.get("Retry-After")) || null;
  const general = PLAIN[response.status] || `The server answered with an error (HTTP ${response.status}).`;
  const message = detail && detail !== general ? `${general} ${detail}` : general;
  throw new ApiError(message, { status: response.status, retryAfter });
}

const translationPath = (id, fileId) =>
  `sessions/${encodeURIComponent(id)}/files/${encodeURIComponent(fileId)}/translation`;

export const api = {
  next: (body, { signal, key } = {}) => request("POST", "next", { body, signal, key }),
  createSession: () => request("POST", "sessions", { body: {} }),
  listSessions: (cursor) => request("GET", `sessions?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`),
  session: (id) => request("GET", `sessions/${encodeURIComponent(id)}`),
  messages: (id, cursor) =>
    request("GET", `sessions/${encodeURIComponent(id)}/messages?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`),
  deleteSession: (id) => request("DELETE", `sessions/${encodeURIComponent(id)}`),
  upload: (id, name, content) => request("POST", `sessions/${encodeURIComponent(id)}/files`, { body: { name, content } }),
  file: (id, fileId) => request("GET", `sessions/${encodeURIComponent(id)}/files/${encodeURIComponent(fileId)}`),
  source: (id, fileId) =>
    request("GET", `sessions/${encodeURIComponent(id)}/files/${encodeURIComponent(fileId)}/source`, { accept: "text/*" }),
  units: (id, fileId) => request("GET", `sessions/${encodeURIComponent(id)}/files/${encodeURIComponent(fileId)}/units`),
  memory: () => request("GET", "memory"),
  addGlossary: (entry) => request("POST", "memory/glossary", { body: entry }),
  deleteMemory: (entryId) => request("DELETE", `memory/${encodeURIComponent(entryId)}`),
  /** The translation as a file, fetched with the token (a plain link cannot send one). */
  download: async (id, fileId) => {
    const response = await request("GET", translationPath(id, fileId), { accept: "*/*", raw: true });
    const name = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "")?.[1];
    return { blob: await response.blob(), name: name || "translation.txt" };
  },
  translationUrl: (id, fileId) => apiUrl(translationPath(id, fileId)),
};
