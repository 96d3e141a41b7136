// The API token the operator pastes into GraphiQL: kept in this browser's localStorage (this origin only; the page's
// CSP lets no other script run here), sent as `Authorization: Bearer` over HTTP and in graphql-ws's connection_init.

/** The localStorage key that holds the token. */
export const TOKEN_KEY = "kintsugi.token";

/** The stored token, or null (none stored, or storage unavailable, e.g. disabled by the browser). */
export function readToken() {
  try {
    return localStorage.getItem(TOKEN_KEY) || null;
  } catch {
    return null;
  }
}

/** Stores the token, or removes it given null. Returns false when the browser refuses to store it. */
export function storeToken(token) {
  try {
    if (token === null) localStorage.removeItem(TOKEN_KEY);
    else localStorage.setItem(TOKEN_KEY, token);
    return true;
  } catch {
    return false;
  }
}

/**
 * The token in pasted text, or an error message. A leading "Bearer " (pasted from a header) is dropped; what is left
 * must be one run of visible ASCII characters, as `kintsugi token create` prints, so it fits in a header.
 */
export function parseToken(text) {
  const token = text.trim().replace(/^bearer\s+/i, "");
  if (token === "") return { error: "Paste a token first." };
  if (!/^[\x21-\x7e]+$/.test(token)) return { error: "A token is one word of visible ASCII characters." };
  return { token };
}

/** `fetch` that adds the token as a Bearer Authorization header, unless the request already carries one. */
export function fetchWithToken(token) {
  return (input, init = {}) => {
    const headers = new Headers(init.headers);
    if (token !== null && !headers.has("authorization")) headers.set("authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

/** graphql-ws connection_init payload: the token as kintsugi reads it, or none. */
export function connectionParams(token) {
  return token === null ? undefined : { authorization: `Bearer ${token}` };
}
