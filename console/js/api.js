// The console's only door to the service: the public API, through fetch.
// A person signs in with e-mail and password: the service sets an HttpOnly session cookie (the page
// never sees it) and answers a CSRF token, kept in memory only. From the session the console mints
// short access tokens (5 minutes) for the chosen account, with the scopes of the person's role, and
// calls the API with them exactly as an integration does. The token and the chosen account live in
// sessionStorage, so they end with the tab; the cookie lets a new tab or a reload carry on.

const KEY = 'sparrow.console.session';
// Renew a little before expiry so a request never leaves with a token about to lapse.
const RENEW_MARGIN_MS = 30_000;
const SESSION_URL = '/console/api/session';

let csrf = null;

/** An error from the API, with the envelope's code and text. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The current session ({accountId, accountName, role, accounts, user, token, expiresAt}), or null. */
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

async function sessionCall(method, path, json) {
  const headers = {};
  if (json !== undefined) headers['content-type'] = 'application/json';
  if (csrf) headers['x-csrf-token'] = csrf;
  const res = await fetch(path, {
    method,
    headers,
    body: json === undefined ? undefined : JSON.stringify(json),
    credentials: 'same-origin',
  });
  const body = await readBody(res);
  if (!res.ok) throw errorFrom(res, body);
  return body;
}

async function mint(who, accountId) {
  const account = who.accounts.find((a) => a.id === accountId) ?? who.accounts[0];
  if (!account) throw new ApiError(403, 'USER-009', 'This user is not a member of any account yet.');
  const t = await sessionCall('POST', '/console/api/token', { accountId: account.id });
  const next = {
    user: who.user,
    accounts: who.accounts,
    accountId: account.id,
    accountName: account.name,
    role: t.role,
    token: t.access_token,
    expiresAt: Date.now() + t.expires_in * 1000,
  };
  sessionStorage.setItem(KEY, JSON.stringify(next));
  return next;
}

/** Signs in with e-mail and password and opens the person's first (or last used) account. */
export async function signIn(email, password) {
  const { data } = await sessionCall('POST', SESSION_URL, { email, password });
  csrf = data.csrfToken;
  return mint(data, session()?.accountId);
}

/** Carries on a session the cookie still holds (a reload, a new tab): answers it, or null. */
export async function resume() {
  try {
    const { data } = await sessionCall('GET', SESSION_URL);
    csrf = data.csrfToken;
    return await mint(data, session()?.accountId);
  } catch {
    sessionStorage.removeItem(KEY);
    return null;
  }
}

/** Switches to another of the person's accounts. */
export async function switchAccount(accountId) {
  const s = session();
  if (!s) throw new ApiError(401, 'USER-003', 'Sign in first.');
  if (!csrf) await resume();
  return mint({ user: s.user, accounts: s.accounts }, accountId);
}

/** Ends the session on the server (the cookie) and here. */
export async function signOut() {
  sessionStorage.removeItem(KEY);
  try {
    if (!csrf) csrf = (await sessionCall('GET', SESSION_URL)).data.csrfToken;
    await sessionCall('DELETE', SESSION_URL);
  } catch {
    // Already ended.
  }
  csrf = null;
}

/** What an invitation link is for. */
export async function invitation(token) {
  return (await sessionCall('GET', `/console/api/invitations/${encodeURIComponent(token)}`)).data;
}

/** Accepts an invitation (setting a password when needed) and signs the person in. */
export async function acceptInvitation(token, body) {
  const { data } = await sessionCall(
    'POST',
    `/console/api/invitations/${encodeURIComponent(token)}/accept`,
    body,
  );
  csrf = data.csrfToken;
  return mint(data, undefined);
}

async function renew(s) {
  try {
    if (!csrf) csrf = (await sessionCall('GET', SESSION_URL)).data.csrfToken;
    return await mint({ user: s.user, accounts: s.accounts }, s.accountId);
  } catch {
    // The page shows the sign-in form with the e-mail of this session, then signs out.
    throw new ApiError(401, 'USER-003', 'Your session has ended. Sign in again.');
  }
}

/**
 * What a call sends besides its method and path.
 * @typedef {object} ApiOptions
 * @property {Record<string, string | number | boolean | undefined>} [query] the query string (undefined and '' left out)
 * @property {unknown} [json] a JSON body
 * @property {string} [csv] a text/csv body
 * @property {Blob} [file] a body sent as its bytes, with its type
 * @property {FormData} [form] a multipart/form-data body (the browser writes its boundary)
 * @property {boolean} [root] call `/v1{path}` instead of the account's path
 * @property {Record<string, string>} [headers] more request headers (`Idempotency-Key`)
 * @property {boolean} [raw] answer the successful Response itself (a CSV file), not its JSON
 */

/**
 * Calls the account's part of the API: api('GET', '/contacts', {query}) → GET
 * /v1/accounts/{accountId}/contacts. Answers the envelope; throws ApiError on failure.
 * `json` sends a JSON body; `csv` sends text/csv; `file` (a File or Blob) sends its bytes with its
 * type; `form` sends a FormData as multipart/form-data. `root: true` calls `/v1{path}` instead (operations outside the account path, e.g. tools).
 * @param {string} method
 * @param {string} path
 * @param {ApiOptions} [options]
 * @returns {Promise<any>} the envelope (`data`, `pagination`, …) as the API documents it
 */
export async function api(
  method,
  path,
  { query, json, csv, file, form, root = false, headers: extra, raw = false } = {},
) {
  let s = session();
  if (!s) throw new ApiError(401, 'AUTH-001', 'Sign in first.');
  if (s.expiresAt - Date.now() < RENEW_MARGIN_MS) s = await renew(s);
  const qs = query
    ? new URLSearchParams(
        Object.entries(query)
          .filter(([, v]) => v !== undefined && v !== '')
          .map(([k, v]) => [k, String(v)]),
      )
    : null;
  const search = qs ? qs.toString() : '';
  const base = root ? '/v1' : `/v1/accounts/${encodeURIComponent(s.accountId)}`;
  const url = `${base}${path}${search ? `?${search}` : ''}`;
  const send = (token) => {
    const headers = { ...extra, authorization: `Bearer ${token}` };
    let body;
    if (json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(json);
    } else if (csv !== undefined) {
      headers['content-type'] = 'text/csv';
      body = csv;
    } else if (file !== undefined) {
      headers['content-type'] = file.type || 'application/octet-stream';
      body = file;
    } else if (form !== undefined) {
      body = form;
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
  if (raw && res.ok) return res;
  const body = await readBody(res);
  if (!res.ok || !body || body.success === false) throw errorFrom(res, body);
  return body;
}

/** Hosts a file (POST /v1/tools/sharefile): answers `{link, expires, contentType, size}`. */
export async function shareFile(file) {
  return (await api('POST', '/tools/sharefile', { file, root: true })).data;
}
