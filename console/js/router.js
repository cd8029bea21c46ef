// A tiny hash router: #/contacts/123?q=ann → { path: '/contacts/123', params: {id}, query }.
// Hash routes need no server fallback: the service serves one HTML page.

/**
 * The current location as a path and its query parameters.
 * @returns {{ path: string, query: URLSearchParams }}
 */
export function current() {
  const hash = location.hash.replace(/^#/, '') || '/overview';
  const [path, qs = ''] = hash.split('?');
  return { path, query: new URLSearchParams(qs) };
}

/**
 * The hash for a path and query (empty values left out).
 * @param {string} path
 * @param {Record<string, string | number | boolean | null | undefined>} [query]
 */
export function link(path, query = {}) {
  const qs = new URLSearchParams(
    Object.entries(query)
      .filter(([, v]) => v !== undefined && v !== null && v !== '')
      .map(([k, v]) => [k, String(v)]),
  ).toString();
  return `#${path}${qs ? `?${qs}` : ''}`;
}

/**
 * Navigates to a path and query.
 * @param {string} path
 * @param {Record<string, string | number | boolean | null | undefined>} [query]
 */
export function go(path, query) {
  location.hash = link(path, query);
}

/**
 * Finds the route whose pattern (e.g. '/contacts/:id') matches the path.
 * @template {{ path: string }} R
 * @param {R[]} routes
 * @param {string} path
 * @returns {{ route: R, params: Record<string, string> } | null}
 */
export function match(routes, path) {
  const parts = path.split('/').filter(Boolean);
  for (const route of routes) {
    const pattern = route.path.split('/').filter(Boolean);
    if (pattern.length !== parts.length) continue;
    /** @type {Record<string, string>} */
    const params = {};
    let ok = true;
    for (let i = 0; i < pattern.length; i++) {
      if (pattern[i].startsWith(':')) params[pattern[i].slice(1)] = decodeURIComponent(parts[i]);
      else if (pattern[i] !== parts[i]) ok = false;
    }
    if (ok) return { route, params };
  }
  return null;
}
