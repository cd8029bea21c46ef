// The console's only door to the service: the public API, through fetch.
// The session (account id, client id, access token and its expiry) lives in sessionStorage, so it
// ends with the tab. The client secret stays in memory only: it renews the token while the page is
// open, and is never written to storage. After a reload the token is used until it expires; then
// the person signs in again.

const KEY = 'sparrow.console.session';
// Renew a little before expiry so a request never leaves with a token about to lapse.
const RENEW_MARGIN_MS = 30_000;

let secret = null;

/** An error from the API, with the envelope's code and text. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The current session, or null when signed out. */
export function session() {
  try {
    return JSON.parse(sessionStorage.getItem(KEY) ?? 'null');
  } catch {
    return null;
  }
}

async function readBody(res) {
  const text = await res.text();
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

function errorFrom(res, body) {
  const e = body?.error;
  if (e && typeof e === 'object')
    return new ApiError(res.status, e.code, e.message || e.description || res.statusText);
  return new ApiError(res.status, `HTTP-${res.status}`, res.statusText || 'The request failed.');
}

async function requestToken(clientId, clientSecret) {
  const res = await fetch('/oauth2/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
  const body = await readBody(res);
  if (!res.ok) throw errorFrom(res, body);
  return { token: body.access_token, expiresAt: Date.now() + body.expires_in * 1000 };
}

/** Exchanges the credentials for a token and checks that it opens the account. */
export async function signIn(accountId, clientId, clientSecret) {
  const { token, expiresAt } = await requestToken(clientId, clientSecret);
  sessionStorage.setItem(KEY, JSON.stringify({ accountId, clientId, token, expiresAt }));
  secret = clientSecret;
  try {
    return await api('GET', '');
  } catch (err) {
    signOut();
    throw err;
  }
}

/** Forgets the token and the secret. */
export function signOut() {
  sessionStorage.removeItem(KEY);
  secret = null;
}

async function renew(s) {
  if (!secret) {
    throw new ApiError(401, 'AUTH-002', 'Your session has expired. Sign in again.');
  }
  const { token, expiresAt } = await requestToken(s.clientId, secret);
  const next = { ...s, token, expiresAt };
  sessionStorage.setItem(KEY, JSON.stringify(next));
  return next;
}

/**
 * Calls the account's part of the API: api('GET', '/contacts', {query}) → GET
 * /v1/accounts/{accountId}/contacts. Answers the envelope; throws ApiError on failure.
 * `json` sends a JSON body; `csv` sends text/csv.
 */
export async function api(method, path, { query, json, csv } = {}) {
  let s = session();
  if (!s) throw new ApiError(401, 'AUTH-001', 'Sign in first.');
  if (s.expiresAt - Date.now() < RENEW_MARGIN_MS) s = await renew(s);
  const qs = query
    ? new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined && v !== ''))
    : null;
  const search = qs ? qs.toString() : '';
  const url = `/v1/accounts/${encodeURIComponent(s.accountId)}${path}${search ? `?${search}` : ''}`;
  const send = (token) => {
    const headers = { authorization: `Bearer ${token}` };
    let body;
    if (json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(json);
    } else if (csv !== undefined) {
      headers['content-type'] = 'text/csv';
      body = csv;
    }
    return fetch(url, { method, headers, body });
  };
  let res = await send(s.token);
  // A token the server no longer accepts (expired early, keys rotated): renew once and retry.
  if (res.status === 401) {
    s = await renew(s);
    res = await send(s.token);
  }
  if (res.status === 204) return { success: true };
  const body = await readBody(res);
  if (!res.ok || !body || body.success === false) throw errorFrom(res, body);
  return body;
}
