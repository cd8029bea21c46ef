import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { sendError } from '../plugins/errors.ts';

/** Where the console's static files live (no build step: they are served as written). */
export const CONSOLE_ROOT = `${path.join(PACKAGE_ROOT, 'console')}${path.sep}`;

/**
 * The console's Content-Security-Policy: only this origin's scripts, styles and API, no inline
 * script or style, and no framing (clickjacking).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

/**
 * Reads every servable file under the root once, keyed by its relative URL path. Serving only
 * from this map means no request path ever reaches the file system, so `..` and its encodings
 * cannot escape the folder.
 */
function loadAssets(root: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      const type = TYPES[path.extname(entry.name)];
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && type) {
        const body = readFileSync(full);
        const key = path.relative(root, full).split(path.sep).join('/');
        const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
        assets.set(key, { body, type, etag });
      }
    }
  };
  walk(root);
  return assets;
}

function securityHeaders(reply: FastifyReply) {
  reply.headers({
    'content-security-policy': CONSOLE_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
  });
}

/** The web console at /console/: static HTML, CSS and ES modules that talk to the public API. */
export async function consoleRoutes(app: FastifyInstance) {
  const assets = loadAssets(CONSOLE_ROOT);
  // Every console answer, an asset or an error, carries the security headers.
  app.addHook('onSend', async (_req, reply, payload) => {
    securityHeaders(reply);
    return payload;
  });

  const serve = (key: string, req: FastifyRequest, reply: FastifyReply) => {
    const asset = assets.get(key);
    if (!asset) return sendError(reply, 'HTTP-404', 'No such console file.');
    reply.header('etag', asset.etag).header('cache-control', 'no-cache');
    if (req.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.type(asset.type).send(asset.body);
  };

  // With trailing slashes ignored this route answers both /console and /console/; the bare form
  // is redirected so that the address bar shows the console's folder.
  app.get('/console', { schema: { hide: true } }, async (req, reply) =>
    req.url.split('?')[0].endsWith('/') ? serve('index.html', req, reply) : reply.redirect('/console/', 301),
  );

  app.get<{ Params: { '*': string } }>('/console/*', { schema: { hide: true } }, async (req, reply) =>
    serve(req.params['*'] === '' ? 'index.html' : req.params['*'], req, reply),
  );
}
