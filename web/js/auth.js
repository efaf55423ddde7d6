// Signing in, for a stack whose API wants a JWT (docs/ui.md, "Signing in"). The server says how in auth.json:
// "oidc" (the Authorization Code flow with PKCE at the configured provider), "token" (the user pastes a bearer
// token) or "none" (local mode: nothing here shows, and no header is sent).
//
// Tokens live in sessionStorage: they survive a reload and the round trip to the provider, but not the tab, and
// no other tab or site sees them.

const CONFIG_URL = new URL("auth.json", document.baseURI);
const TOKENS = "auth:tokens"; // {bearer, refreshToken, expiresAt (ms, or null), name}
const PENDING = "auth:pending"; // {state, verifier, hash} while the browser is at the provider
const SKEW_MS = 60_000; // refresh (or sign in again) this long before the token expires
const CALLBACK_PARAMS = ["code", "state", "error", "error_description", "error_uri", "iss", "session_state"];
const NAME_CLAIMS = ["email", "preferred_username", "cognito:username", "username", "name", "sub"];

const $ = (id) => document.getElementById(id);

let config = { signIn: "none" };
let tokens = null;
let refreshing = null;
let hooks = { onSignedIn() {}, onSignOut() {} };

/* ---------- encoding and tokens ---------- */

function base64url(bytes) {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decodeBase64url(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "="));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

const randomString = (bytes) => base64url(crypto.getRandomValues(new Uint8Array(bytes)));

async function s256(verifier) {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

/** The claims of a JWT (its decoded payload), or null when `token` is not one. Nothing is verified here. */
export function claimsOf(token) {
  const parts = typeof token === "string" ? token.split(".") : [];
  if (parts.length !== 3 || !parts.every((p) => /^[A-Za-z0-9_-]+$/.test(p))) return null;
  try {
    const header = JSON.parse(decodeBase64url(parts[0]));
    const claims = JSON.parse(decodeBase64url(parts[1]));
    const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
    return isObject(header) && isObject(claims) ? claims : null;
  } catch {
    return null;
  }
}

function displayName(...claimSets) {
  for (const claim of NAME_CLAIMS) {
    for (const claims of claimSets) {
      const value = claims?.[claim];
      if (typeof value === "string" && value.trim()) return value.trim();
    }
  }
  return "unknown user";
}

/**
 * What to keep of a token endpoint's answer. The access token is sent: API Gateway's JWT authorizer accepts it
 * when its `client_id` claim (Cognito access tokens have no `aud`) is one of the audiences. The ID token is sent
 * only when there is no access token in JWT form (some providers issue opaque ones, which no authorizer can check).
 */
function fromAnswer(answer, previous = null) {
  const access = typeof answer.access_token === "string" ? answer.access_token : "";
  const id = typeof answer.id_token === "string" ? answer.id_token : "";
  const bearer = claimsOf(access) || !id ? access : id;
  if (!bearer) throw new Error("The sign-in service answered without a token.");
  const claims = claimsOf(bearer) || {};
  const lifetime = Number(answer.expires_in);
  return {
    bearer,
    refreshToken: typeof answer.refresh_token === "string" ? answer.refresh_token : previous?.refreshToken || "",
    expiresAt:
      typeof claims.exp === "number" ? claims.exp * 1000 : lifetime > 0 ? Date.now() + lifetime * 1000 : null,
    name: displayName(claimsOf(id), claims),
  };
}

const expiring = (t) => t.expiresAt != null && t.expiresAt - SKEW_MS <= Date.now();
const here = () => location.origin + location.pathname;

/* ---------- storage ---------- */

function load(key) {
  try {
    return JSON.parse(sessionStorage.getItem(key));
  } catch {
    return null;
  }
}

function save(key, value) {
  try {
    if (value == null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, JSON.stringify(value));
  } catch {
    /* storage disabled: the sign-in lasts until the page is left */
  }
}

function keep(next) {
  tokens = next;
  save(TOKENS, next);
  renderAccount();
}

/* ---------- the provider (OIDC) ---------- */

async function tokenRequest(fields) {
  let response;
  try {
    response = await fetch(config.tokenUrl, {
      method: "POST",
      headers: { Accept: "application/json" },
      body: new URLSearchParams({ client_id: config.clientId, ...fields }),
      credentials: "omit",
      cache: "no-store",
    });
  } catch {
    throw new Error("Could not reach the sign-in service. Check the connection, then sign in again.");
  }
  let answer = null;
  try {
    answer = await response.json();
  } catch {
    /* not JSON: keep the generic words */
  }
  if (!response.ok || !answer) {
    const why = answer?.error_description || answer?.error;
    throw new Error(`The sign-in service refused${typeof why === "string" ? `: ${why}` : ` (HTTP ${response.status})`}.`);
  }
  return answer;
}

async function goToProvider() {
  if (!window.isSecureContext || !crypto.subtle) {
    showProblem("Signing in needs a secure page: open the app over https.");
    return;
  }
  const verifier = randomString(32);
  const state = randomString(16);
  // The hash holds the open session (#s_…): it comes back after the provider's redirect.
  save(PENDING, { state, verifier, hash: location.hash });
  const url = new URL(config.authorizeUrl);
  const params = {
    response_type: "code",
    client_id: config.clientId,
    redirect_uri: here(),
    scope: config.scopes,
    state,
    code_challenge: await s256(verifier),
    code_challenge_method: "S256",
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  location.assign(url.href);
}

async function finishSignIn(params) {
  const pending = load(PENDING);
  save(PENDING, null);
  // The code leaves the address at once (history, bookmarks, a shared screen); the user's place comes back.
  const rest = new URLSearchParams(location.search);
  for (const name of CALLBACK_PARAMS) rest.delete(name);
  const query = rest.toString();
  history.replaceState(null, "", `${location.pathname}${query ? `?${query}` : ""}${pending?.hash || location.hash}`);
  if (params.get("error")) {
    throw new Error(`The sign-in did not complete: ${params.get("error_description") || params.get("error")}.`);
  }
  if (!pending || params.get("state") !== pending.state) {
    throw new Error("This sign-in answer does not belong to a sign-in started in this tab. Sign in again.");
  }
  const answer = await tokenRequest({
    grant_type: "authorization_code",
    code: params.get("code") || "",
    redirect_uri: here(),
    code_verifier: pending.verifier,
  });
  keep(fromAnswer(answer));
}

async function refresh() {
  try {
    keep(fromAnswer(await tokenRequest({ grant_type: "refresh_token", refresh_token: tokens.refreshToken }), tokens));
    return true;
  } catch {
    return false;
  }
}

/* ---------- a pasted token ---------- */

/** Why a pasted token cannot be used, or "" when it looks right (the server checks the rest). */
export function tokenProblem(token) {
  if (!token) return "Paste your token first.";
  const claims = claimsOf(token);
  if (!claims) return "This is not a JWT: a JWT has three parts separated by dots (header.payload.signature).";
  if (claims.exp === undefined) return "";
  if (typeof claims.exp !== "number") return "This token's expiry (its exp claim) is not a time.";
  if (claims.exp * 1000 <= Date.now()) {
    return `This token expired on ${new Date(claims.exp * 1000).toLocaleString()}. Get a new one.`;
  }
  return "";
}

function usePastedToken() {
  const token = $("sign-in-token").value.trim().replace(/^Bearer\s+/i, "");
  const problem = tokenProblem(token);
  if (problem) {
    showProblem(problem);
    $("sign-in-token").focus();
    return;
  }
  const claims = claimsOf(token);
  keep({ bearer: token, refreshToken: "", expiresAt: claims.exp ? claims.exp * 1000 : null, name: displayName(claims) });
  $("sign-in-token").value = "";
  $("sign-in").close();
  hooks.onSignedIn();
}

/* ---------- the prompt and the account control ---------- */

function showProblem(text) {
  $("sign-in-error").textContent = text;
  $("sign-in-error").hidden = !text;
}

function openPrompt(message = "Sign in to see and continue your translations.", problem = "") {
  const dialog = $("sign-in");
  const pasting = config.signIn === "token";
  $("sign-in-text").textContent = message;
  $("sign-in-token-field").hidden = !pasting;
  $("sign-in-go").textContent = pasting ? "Use this token" : "Sign in";
  showProblem(problem);
  if (!dialog.open) dialog.showModal();
  (pasting ? $("sign-in-token") : $("sign-in-go")).focus();
}

function renderAccount() {
  $("account").hidden = config.signIn === "none";
  $("account-name").hidden = !tokens;
  $("account-user").textContent = tokens?.name || "";
  $("account-name").title = tokens?.name || "";
  $("sign-out").hidden = !tokens;
  $("sign-in-open").hidden = Boolean(tokens);
}

function signOut() {
  keep(null);
  save(PENDING, null);
  hooks.onSignOut();
  if (config.logoutUrl) {
    const url = new URL(config.logoutUrl);
    url.searchParams.set("client_id", config.clientId);
    url.searchParams.set("logout_uri", here());
    location.assign(url.href);
  } else {
    location.replace(here()); // the home screen, signed out
  }
}

function wire() {
  $("sign-in-form").addEventListener("submit", (e) => {
    e.preventDefault();
    if (config.signIn === "oidc") goToProvider();
    else usePastedToken();
  });
  $("sign-in-cancel").addEventListener("click", () => $("sign-in").close());
  $("sign-in-token").addEventListener("input", () => showProblem(""));
  $("sign-in-token").addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || e.shiftKey || e.isComposing) return; // a token has no line breaks: Enter submits
    e.preventDefault();
    $("sign-in-form").requestSubmit();
  });
  $("sign-in-open").addEventListener("click", () => openPrompt());
  $("sign-out").addEventListener("click", signOut);
}

async function loadConfig() {
  try {
    const response = await fetch(CONFIG_URL, { headers: { Accept: "application/json" }, cache: "no-cache" });
    if (response.ok) {
      const data = await response.json();
      if (data.signIn === "oidc" || data.signIn === "token") return data;
      return { signIn: "none", local: data.local === true };
    }
  } catch {
    /* no sign-in config: signed in nowhere, and not known to be local */
  }
  return { signIn: "none" };
}

/* ---------- what the rest of the UI calls ---------- */

/** Whether API requests need a token (the server asked for a sign-in). */
export const signInRequired = () => config.signIn !== "none";

/** Whether the server runs locally (`"local": true`): only there may a request act as another identity. */
export const localServer = () => config.local === true;

/**
 * Read the sign-in config, finish a sign-in coming back from the provider, and show the account control.
 * Resolves to true when the UI may call the API now, false when it waits for a sign-in (the prompt is open;
 * `onSignedIn` runs once the user signed in without leaving the page).
 */
export async function startAuth({ onSignedIn, onSignOut }) {
  hooks = { onSignedIn, onSignOut };
  config = await loadConfig();
  if (config.signIn === "none") return true;
  wire();
  const stored = load(TOKENS);
  tokens = typeof stored?.bearer === "string" && stored.bearer ? stored : null;
  let problem = "";
  const params = new URLSearchParams(location.search);
  if (config.signIn === "oidc" && params.has("state") && (params.has("code") || params.has("error"))) {
    try {
      await finishSignIn(params);
    } catch (err) {
      problem = err.message;
    }
  }
  renderAccount();
  if (tokens && (!expiring(tokens) || (config.signIn === "oidc" && tokens.refreshToken))) return true;
  keep(null);
  openPrompt(undefined, problem);
  return false;
}

/** The token for the next API request, refreshed when it is about to expire; null (and the prompt) without one. */
export async function bearer() {
  if (tokens && !expiring(tokens)) return tokens.bearer;
  if (tokens?.refreshToken && config.signIn === "oidc") {
    refreshing ||= refresh().finally(() => (refreshing = null));
    if ((await refreshing) && tokens) return tokens.bearer;
  }
  askToSignIn(tokens ? "Your sign-in has expired. Sign in again to carry on where you were." : undefined);
  return null;
}

/** The server refused the token (401): forget it and ask for a sign-in; the page keeps the user's place. */
export function signedOut() {
  askToSignIn("The server did not accept your sign-in (it may have expired). Sign in again to carry on where you were.");
}

function askToSignIn(message) {
  if (config.signIn === "none") return;
  keep(null);
  openPrompt(message);
}
