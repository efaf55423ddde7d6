// @ts-check
// The API as this page calls it: web/js/http.js with the browser's fetch, every path relative to the
// page (so the UI works under a stage prefix), the sign-in's bearer token, and in local mode the
// identity this tab acts as (actas.js).

import { actAsHeaders } from "./actas.js";
import { bearer, signedOut, signInRequired } from "./auth.js";
import { ApiError, createApi, newKey } from "./http.js";

export { ApiError, newKey };

export const api = createApi({
  base: new URL("api/", document.baseURI),
  fetch: (input, init) => window.fetch(input, init),
  authorize: async () => {
    if (!signInRequired()) return null;
    const token = await bearer();
    if (!token) throw new ApiError("You are signed out. Sign in again, then retry.", { status: 401 });
    return token;
  },
  onSignedOut: signedOut,
  // Local mode only: the server ignores the header anywhere else (docs/api.md "Identity").
  headers: () => (signInRequired() ? {} : actAsHeaders()),
});
