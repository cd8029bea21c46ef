// A tiny hash router: #/contacts/123?q=ann → { path: '/contacts/123', params: {id}, query }.
// Hash routes need no server fallback: the service serves one HTML page.

/** The current location as a path and its query parameters. */
export function current() {
  const hash = location.hash.replace(/^#/, '') || '/overview';
  const [path, qs = ''] = hash.split('?');
  return { path, query: new URLSearchParams(qs) };
}

/** The hash for a path and query (empty values left out). */
export function link(path, query = {}) {
  const qs = new URLSearchParams(
    Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== ''),
  ).toString();
  return `#${path}${qs ? `?${qs}` : ''}`;
}

/** Navigates to a path and query. */
export function go(path, query) {
  location.hash = link(path, query);
}

/** Finds the route whose pattern (e.g. '/contacts/:id') matches the path. */
export function match(routes, path) {
  const parts = path.split('/').filter(Boolean);
  for (const route of routes) {
    const pattern = route.path.split('/').filter(Boolean);
    if (pattern.length !== parts.length) continue;
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
